#include "minimt/base/visible_text.h"

#include <cstdio>

#include "minimt/base/utf8.h"

namespace minimt {
namespace {

void append_escape(std::string& out, const char* format, unsigned value) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, format, value);
  out += escaped;
}

std::string escape(const std::string& text, bool keep_lines) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    char32_t code = 0;
    const size_t length = decode_utf8(text, at, &code);
    if (length == 0) {  // not UTF-8: this byte alone, then the next one is looked at afresh
      append_escape(out, "\\x%02X", static_cast<unsigned char>(text[at]));
      ++at;
      continue;
    }
    if (keep_lines && (code == '\t' || code == '\n')) {
      out += static_cast<char>(code);
    } else if (code == '\t') {
      out += "\\t";
    } else if (code == '\n') {
      out += "\\n";
    } else if (code == '\r') {
      out += "\\r";
    } else if (code < 0x20 || code == 0x7f) {
      append_escape(out, "\\x%02X", static_cast<unsigned>(code));
    } else if (code >= 0x80 && code <= 0x9f) {
      append_escape(out, "\\u%04X", static_cast<unsigned>(code));
    } else {
      out.append(text, at, length);
    }
    at += length;
  }
  return out;
}

}  // namespace

std::string visible_text(const std::string& text) {
  return is_visible_text(text) ? text : escape(text, false);
}

std::string visible_lines(const std::string& text) {
  return is_visible_text(text) ? text : escape(text, true);
}

bool is_visible_text(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte >= 0x20 && byte < 0x7f) {  // the common case, checked without decoding
      ++at;
      continue;
    }
    char32_t code = 0;
    const size_t length = decode_utf8(text, at, &code);
    if (length == 0 || code < 0x20 || (code >= 0x7f && code <= 0x9f)) return false;
    at += length;
  }
  return true;
}

}  // namespace minimt
