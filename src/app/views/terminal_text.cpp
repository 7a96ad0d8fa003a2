#include "app/views/terminal_text.h"

#include <algorithm>

#include "minimt/base/utf8.h"

namespace minimt::view {
namespace {

// Wide: Hangul Jamo, CJK, Hangul syllables, compatibility forms, fullwidth forms, emoji.
bool wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
         (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD);
}

// Combining: drawn over the character before it.
bool combining(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B || c == 0x200D;
}

// The bytes of the escape sequence "\x1b[...m" at `at`: its parameters, then a final byte from
// '@' to '~'.
size_t sequence_length(const std::string& text, size_t at) {
  size_t end = at + 2;
  while (end < text.size() && !(text[end] >= '@' && text[end] <= '~')) ++end;
  return std::min(text.size(), end + 1) - at;
}

}  // namespace

std::vector<TerminalChar> terminal_chars(const std::string& text) {
  std::vector<TerminalChar> chars;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "\x1b[") == 0) {  // a colour of the picture: no column
      const size_t length = sequence_length(text, i);
      chars.push_back({text.substr(i, length), 0});
      i += length;
      continue;
    }
    char32_t code = 0xFFFD;
    size_t length = decode_utf8(text, i, &code);
    if (length == 0) length = 1;  // terminal_escape leaves none; counted as one column
    chars.push_back({text.substr(i, length), wide(code) ? 2 : combining(code) ? 0 : 1});
    i += length;
  }
  return chars;
}

int terminal_width(const std::string& text) {
  int width = 0;
  for (const TerminalChar& c : terminal_chars(text)) width += c.width;
  return width;
}

std::string fit_width(const std::string& text, int width) {
  if (terminal_width(text) <= width) return text;
  std::string out;
  int used = 0;
  for (const TerminalChar& c : terminal_chars(text)) {
    if (used + c.width > width - 1) break;
    out += c.bytes;
    used += c.width;
  }
  return width > 0 ? out + "\u2026" : out;
}

std::string pad_width(const std::string& text, int width, bool right_align) {
  const int missing = width - terminal_width(text);
  if (missing <= 0) return text;
  return right_align ? std::string(missing, ' ') + text : text + std::string(missing, ' ');
}

}  // namespace minimt::view
