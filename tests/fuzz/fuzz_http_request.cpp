// minimt serve's reading of a request: the input is a connection's bytes, cut into pieces as
// recv would hand them (each piece's length from the byte before it), fed to RequestReader;
// each whole request's body goes through read_serve_input for every endpoint, and each answer
// head is written. A refusal (a status, an HttpError) is the expected outcome for bad input.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz_common.h"
#include "minimt/app/run/request.h"
#include "serve/http_message.h"
#include "serve/request_json.h"
#include "serve/request_reader.h"

namespace {

using namespace minimt::serve;

void read_body(const std::string& body) {
  ServeLimits limits;
  limits.max_sentences = 8;
  limits.max_line_bytes = 2000;
  for (Endpoint endpoint : {Endpoint::kTranslate, Endpoint::kScore, Endpoint::kAttention}) {
    try {
      read_serve_input(body, endpoint, minimt::Request(), limits);
    } catch (const HttpError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minimt_fuzz::expect_clean([&] {
    RequestReader reader(4096);
    std::string buffer;
    KeepAliveTerms terms;
    size_t at = 0;
    while (at < size) {
      const size_t piece = std::min<size_t>(size - at - 1, data[at] % 64 + 1);
      buffer.append(reinterpret_cast<const char*>(data + at + 1), piece);
      at += piece + 1;
      for (bool more = true; more;) {
        switch (reader.read(buffer)) {
          case RequestReader::Step::kNeedMore:
            more = false;
            break;
          case RequestReader::Step::kSendContinue:
            break;
          case RequestReader::Step::kRefused: {
            const ReadRefusal& why = reader.refusal();
            if (why.status < 400 || why.status > 499) std::abort();
            serialize_head(error_answer(why.status, why.message, why.field, true), terms);
            return;
          }
          case RequestReader::Step::kRequest: {
            HttpRequest request = reader.take();
            if (request.body.size() > 4096) std::abort();  // past the body limit
            read_body(request.body);
            break;
          }
        }
      }
    }
  });
  return 0;
}
