// UTF-8: validation (an input line that is not UTF-8 is refused before it reaches the
// tokenizer), decoding one character at a time, encoding, and cutting at a character boundary.
#pragma once

#include <cstddef>
#include <string>

namespace minimt {

// Byte offset of the first invalid UTF-8 sequence in text, or -1 if it is all valid. Invalid:
// a stray continuation byte, a truncated sequence, an overlong form, a surrogate (CESU-8) and
// anything past U+10FFFF.
long long find_invalid_utf8(const std::string& text);

// The character that starts at byte `at` of text: its length in bytes (1 to 4) with *code set,
// or 0 when the bytes there are not valid UTF-8 (as find_invalid_utf8 judges them).
size_t decode_utf8(const std::string& text, size_t at, char32_t* code);

// Appends the UTF-8 form of code (a Unicode scalar value).
void append_utf8(std::string& out, char32_t code);

// The length of the longest prefix of text that has at most `limit` bytes and does not end in
// the middle of a UTF-8 sequence: text.size() if it fits, else `limit` moved back over at most
// three continuation bytes.
size_t utf8_prefix_length(const std::string& text, size_t limit);

}  // namespace minimt
