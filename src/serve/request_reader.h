// RequestReader: one connection's requests, read from the bytes as they arrive by Boost.Beast's
// HTTP/1.1 parser (a strict one: a Content-Length that is not a number, two that disagree, a
// Content-Length beside Transfer-Encoding, a malformed line, all refused), with minimt's own
// rules on top: one Content-Length header at most, no chunked or unsized bodies (411), the
// head within kRequestHeadBytes and the body within the limit (413, told before the body is
// sent when the client waits for "100 Continue"). After a refusal the connection carries no
// more requests: what follows on it is not a request.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "serve/http_message.h"

namespace minimt::serve {

// What a request may send besides its body: its request line and headers.
inline constexpr size_t kRequestHeadBytes = 64 * 1024;

// A request refused as it was read: the HTTP status, the message and the field it names.
struct ReadRefusal {
  int status = 0;  // 0: none
  std::string message;
  std::string field;
};

class RequestReader {
 public:
  enum class Step {
    kNeedMore,      // the request is not whole yet
    kSendContinue,  // its head asked for "100 Continue" and may send its body: say so, then read
    kRequest,       // a whole request: take() it
    kRefused,       // refusal() says why; the connection ends after that answer
  };

  explicit RequestReader(size_t body_bytes);
  ~RequestReader();
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  // Reads what it can of `buffer` and removes it from the front; bytes past a whole request
  // (the next one, pipelined) stay in `buffer`.
  Step read(std::string& buffer);
  // The request read (after kRequest), and a fresh start for the next one.
  HttpRequest take();
  const ReadRefusal& refusal() const { return refusal_; }
  // Whether any byte of the current request has been read (an idle connection has none).
  bool started() const { return started_; }

 private:
  struct Parser;
  Step refuse(int status, std::string message, std::string field);
  Step check_head();  // once, when the head is whole

  const size_t body_bytes_;
  std::unique_ptr<Parser> parser_;
  bool started_ = false;
  bool head_checked_ = false;
  ReadRefusal refusal_;
};

}  // namespace minimt::serve
