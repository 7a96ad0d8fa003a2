#include "minimt/base/utf8.h"

namespace minimt {

long long find_invalid_utf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t length;
    unsigned min_code;
    unsigned code;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      length = 2, min_code = 0x80, code = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      length = 3, min_code = 0x800, code = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      length = 4, min_code = 0x10000, code = c & 0x07;
    } else {
      return static_cast<long long>(i);
    }
    if (i + length > n) return static_cast<long long>(i);
    for (size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return static_cast<long long>(i);
      code = (code << 6) | (s[i + k] & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min_code || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      return static_cast<long long>(i);
    i += length;
  }
  return -1;
}

}  // namespace minimt
