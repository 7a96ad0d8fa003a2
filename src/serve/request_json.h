// minimt serve's requests: a JSON body read into app's Request (fields named like the long
// flags, `_` for `-`) and the lines it asks for, every field checked for its type and every
// limit before any work. What is wrong becomes an HttpError naming the field.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "minimt/app/run/request.h"
#include "minimt/base/error.h"

namespace minimt::serve {

// A request the server refuses: the HTTP status (400, 413, 503, ...) and the field at fault
// ("" when none is).
class HttpError : public Error {
 public:
  HttpError(int status, std::string field, const std::string& message)
      : Error(message), status_(status), field_(std::move(field)) {}
  int status() const { return status_; }
  const std::string& field() const { return field_; }

 private:
  int status_;
  std::string field_;
};

// What one request may ask for (serve's options).
struct ServeLimits {
  size_t max_body_bytes = 1 << 20;  // checked by the HTTP layer, named here for the messages
  size_t max_sentences = 1000;      // per request
  size_t max_line_bytes = 0;        // a sentence's bytes; 0: kMaxLineBytes, as translate
  int max_length = 256;             // the most output tokens a request may ask for, and its default
};

enum class Endpoint { kTranslate, kScore, kAttention };

struct ServeInput {
  Request request;                 // kind, options and format (always jsonl) filled
  std::vector<std::string> lines;  // the lines run_request would read (score: SOURCE<TAB>TARGET)
  bool many = false;               // "texts" (or lists of sources and targets): answer an array
  std::set<std::string> given;     // the options the body set, by their table names
};

// Reads `body` for `endpoint` (JSON as every file minimt reads: nesting bounded, a key given
// twice in one object refused, no value quoted whole in a message): {"text": S} or {"texts":
// [S...]} (score: {"source": S, "target": S} or two lists of the same length) with the options that
// endpoint takes. `base` holds what the server sets (the model, the compute type, threads). Throws
// HttpError: 400 for malformed JSON (invalid UTF-8 included), a missing or unknown field, or a
// value of the wrong type or out of range (check_request's checks, fields named as JSON); 413 for
// more sentences or a longer sentence than the limits allow.
ServeInput read_serve_input(const std::string& body, Endpoint endpoint, const Request& base,
                            const ServeLimits& limits);

}  // namespace minimt::serve
