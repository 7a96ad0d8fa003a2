#include "minimt/base/text_input.h"

#include "minimt/base/utf8.h"

namespace minimt {

bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
         c == 0x3000;
}

bool is_control(char32_t c) {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}

bool is_invisible_format(char32_t c) {
  return c == 0xad || c == 0x61c || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
         (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
         (c >= 0x2066 && c <= 0x206f) || c == 0xfeff;
}

bool cut_to_limit(std::string& text, size_t limit) {
  if (text.size() <= limit) return false;
  text.resize(utf8_prefix_length(text, limit));
  return true;
}

std::string normalize_input(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a byte order mark
  while (i < text.size()) {
    char32_t code;
    const size_t length = decode_utf8(text, i, &code);
    if (length == 0) {  // not UTF-8: not ours to judge here
      out += text[i++];
      continue;
    }
    if (is_white_space(code))
      out += ' ';
    else if (!is_control(code))
      out.append(text, i, length);
    i += length;
  }
  return out;
}

bool is_blank_input(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    char32_t code;
    const size_t length = decode_utf8(text, i, &code);
    if (length == 0) return false;
    if (!is_white_space(code) && !is_control(code) && !is_invisible_format(code)) return false;
    i += length;
  }
  return true;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  const std::string normal = normalize_input(text);
  size_t at = 0;
  while (at < normal.size()) {
    const size_t start = normal.find_first_not_of(' ', at);
    if (start == std::string::npos) break;
    size_t end = normal.find(' ', start);
    if (end == std::string::npos) end = normal.size();
    words.push_back(normal.substr(start, end - start));
    at = end;
  }
  return words;
}

}  // namespace minimt
