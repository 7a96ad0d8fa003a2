// RequestReader (request_reader.h) over Boost.Beast's request parser.
#include "serve/request_reader.h"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/version.hpp>

// The parser's behaviour minimt relies on (duplicate and conflicting lengths refused, limits
// told before the body) is that of Boost 1.74's Beast, version 300: a newer one is read again
// before it is taken.
static_assert(BOOST_BEAST_VERSION == 300,
              "minimt serve was checked with Boost.Beast 300 (Boost 1.74)");

namespace minimt::serve {

namespace http = boost::beast::http;

struct RequestReader::Parser {
  http::request_parser<http::string_body> beast;
};

RequestReader::RequestReader(size_t body_bytes) : body_bytes_(body_bytes) {
  take();
}

RequestReader::~RequestReader() = default;

HttpRequest RequestReader::take() {
  HttpRequest request;
  if (parser_ && parser_->beast.is_done()) {
    auto& message = parser_->beast.get();
    request.method = std::string(message.method_string());
    const auto target = message.target();
    request.path = std::string(target.substr(0, target.find('?')));
    request.keep_alive = message.keep_alive();
    request.body = std::move(message.body());
  }
  parser_ = std::make_unique<Parser>();
  parser_->beast.header_limit(static_cast<std::uint32_t>(kRequestHeadBytes));
  parser_->beast.body_limit(body_bytes_);
  parser_->beast.eager(true);  // the body with the head, as far as the bytes go
  started_ = false;
  head_checked_ = false;
  return request;
}

RequestReader::Step RequestReader::refuse(int status, std::string message, std::string field) {
  refusal_ = {status, std::move(message), std::move(field)};
  return Step::kRefused;
}

RequestReader::Step RequestReader::check_head() {
  head_checked_ = true;
  const auto& message = parser_->beast.get();
  // A body is read by its Content-Length only: what a chunked or unsized body leaves on the
  // connection would be read as the next request by whoever sits in front (smuggling).
  const bool has_body = message.method() == http::verb::post ||
                        message.method() == http::verb::put ||
                        message.method() == http::verb::patch;
  if (message.count(http::field::transfer_encoding) > 0 ||
      (has_body && message.count(http::field::content_length) == 0))
    return refuse(411,
                  "send the body with a Content-Length header (a chunked body, or one without "
                  "a length, is not read)",
                  "body");
  // Beast takes two equal lengths as one; a request that says its length twice is refused,
  // as every file minimt reads that says one thing twice.
  const auto lengths = message.equal_range(http::field::content_length);
  if (message.count(http::field::content_length) > 1 ||
      (lengths.first != lengths.second &&
       lengths.first->value().find(',') != boost::beast::string_view::npos))
    return refuse(400, "the request gives its Content-Length more than once", "body");
  const auto expect = message.find(http::field::expect);
  if (expect != message.end()) {
    if (!boost::beast::iequals(expect->value(), "100-continue"))
      return refuse(417, "Expect: only 100-continue is understood", "");
    if (!parser_->beast.is_done()) return Step::kSendContinue;
  }
  return Step::kNeedMore;
}

RequestReader::Step RequestReader::read(std::string& buffer) {
  if (refusal_.status) return Step::kRefused;
  if (!buffer.empty()) started_ = true;
  auto& beast = parser_->beast;
  while (!buffer.empty() && !beast.is_done()) {
    boost::beast::error_code error;
    const size_t used = beast.put(boost::asio::buffer(buffer.data(), buffer.size()), error);
    buffer.erase(0, used);
    if (error == http::error::need_more) break;
    if (error && beast.is_header_done() && !head_checked_) {
      // The head's own faults first: a chunked body is refused as such, not for its size.
      const Step step = check_head();
      if (step != Step::kNeedMore && step != Step::kSendContinue) return step;
    }
    if (error == http::error::header_limit)
      return refuse(413,
                    "the request's line and headers are larger than the " +
                        std::to_string(kRequestHeadBytes / 1024) +
                        " KiB a request may have for its headers",
                    "body");
    if (error == http::error::body_limit)
      return refuse(413,
                    "the body is larger than the " + std::to_string(body_bytes_) +
                        " bytes a request may have (--max-body-bytes)",
                    "body");
    if (error) return refuse(400, "a malformed HTTP request (" + error.message() + ")", "");
    if (beast.is_header_done() && !head_checked_) {
      const Step step = check_head();
      if (step != Step::kNeedMore) return step;
    }
    if (used == 0) break;
  }
  if (beast.is_header_done() && !head_checked_) {
    const Step step = check_head();
    if (step != Step::kNeedMore) return step;
  }
  return beast.is_done() ? Step::kRequest : Step::kNeedMore;
}

}  // namespace minimt::serve
