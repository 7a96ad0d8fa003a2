#include "minimt/base/utf8.h"

namespace minimt {

size_t decode_utf8(const std::string& text, size_t at, char32_t* code) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  if (at >= n) return 0;
  const unsigned char c = s[at];
  size_t length;
  char32_t min_code, value;
  if (c < 0x80) {
    *code = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    length = 2, min_code = 0x80, value = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    length = 3, min_code = 0x800, value = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    length = 4, min_code = 0x10000, value = c & 0x07;
  } else {
    return 0;
  }
  if (at + length > n) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((s[at + k] & 0xc0) != 0x80) return 0;
    value = (value << 6) | (s[at + k] & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if (value < min_code || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
  *code = value;
  return length;
}

long long find_invalid_utf8(const std::string& text) {
  char32_t code;
  for (size_t i = 0; i < text.size();) {
    const size_t length = decode_utf8(text, i, &code);
    if (length == 0) return static_cast<long long>(i);
    i += length;
  }
  return -1;
}

void append_utf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

size_t utf8_prefix_length(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text.size();
  size_t n = limit;
  // text[n] is the first byte left out: while it continues a sequence, leave that one out too.
  for (int k = 0; k < 3 && n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80; ++k) --n;
  return n;
}

}  // namespace minimt
