// One HTTP/1.1 exchange as plain data: the request the reader (request_reader.h) hands the
// endpoints, and the answer they give back, written by serialize_head.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace minimt::serve {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target without its query
  std::string body;
  bool keep_alive = true;  // HTTP/1.1 without "Connection: close", or HTTP/1.0 asking for it
};

struct HttpAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the standard ones
  bool close = false;  // the connection's last answer (it says "Connection: close")
};

// What a kept-alive connection's answers say in their Keep-Alive header.
struct KeepAliveTerms {
  int timeout_seconds = 5;
  size_t max_requests = 1000;
};

// The status line and headers of `answer` (Content-Length its body's), ending in the blank line;
// `head_only` (a HEAD request) changes nothing here: the caller leaves the body out.
std::string serialize_head(const HttpAnswer& answer, const KeepAliveTerms& terms);

// {"error": message, "field": name or null} and a newline: the body of every refusal.
std::string error_json(const std::string& message, const std::string& field);

// A refusal, as an answer that ends the connection when `close`.
HttpAnswer error_answer(int status, const std::string& message, const std::string& field,
                        bool close = false);

// "Not Found" for 404; "Unknown" for a status minimt never sends.
const char* reason_phrase(int status);

}  // namespace minimt::serve
