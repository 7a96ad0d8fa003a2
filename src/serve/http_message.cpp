// Answers' heads and refusals' bodies (http_message.h).
#include "serve/http_message.h"

#include "minimt/base/json_writer.h"

namespace minimt::serve {

const char* reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 417:
      return "Expectation Failed";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string error_json(const std::string& message, const std::string& field) {
  std::string out = "{\"error\":";
  append_json_string(out, message);
  out += ",\"field\":";
  if (field.empty())
    out += "null";
  else
    append_json_string(out, field);
  return out + "}\n";
}

HttpAnswer error_answer(int status, const std::string& message, const std::string& field,
                        bool close) {
  HttpAnswer answer;
  answer.status = status;
  answer.body = error_json(message, field);
  answer.close = close;
  return answer;
}

std::string serialize_head(const HttpAnswer& answer, const KeepAliveTerms& terms) {
  std::string head =
      "HTTP/1.1 " + std::to_string(answer.status) + " " + reason_phrase(answer.status) + "\r\n";
  head += "Content-Type: " + answer.content_type + "\r\n";
  head += "Content-Length: " + std::to_string(answer.body.size()) + "\r\n";
  if (answer.close) {
    head += "Connection: close\r\n";
  } else {
    head += "Keep-Alive: timeout=" + std::to_string(terms.timeout_seconds) +
            ", max=" + std::to_string(terms.max_requests) + "\r\n";
  }
  for (const auto& [name, value] : answer.headers) head += name + ": " + value + "\r\n";
  return head + "\r\n";
}

}  // namespace minimt::serve
