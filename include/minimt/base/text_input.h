// Input text as minimt reads it, before a tokenizer sees it: how long a line may be, which
// characters count as white space, and which carry no text at all.
//
// - A line longer than kMaxLineBytes is cut to its first kMaxLineBytes bytes, at a UTF-8
//   character boundary, before it is tokenized (and counts as cut, like a line cut to
//   max_positions). SentencePiece pieces hold at most 16 characters (64 bytes), so with
//   max_positions up to 1024 the cut only drops text the model could not have read anyway,
//   unless the line holds long runs of white space.
// - Every Unicode White_Space character (U+0009-000D, U+0020, U+0085, U+00A0, U+1680,
//   U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000) becomes a plain space, the only
//   white space tokenizers are trained on. Words are what lies between them.
// - Control characters (Unicode Cc: U+0000-001F, U+007F-009F) that are not white space are
//   removed: they carry no text. So is a byte order mark (U+FEFF) at the start of a line.
// - A line with nothing but white space, control characters and invisible format characters
//   (is_invisible_format) is blank: it translates to "" like an empty line. Inside text,
//   format characters stay (U+200C/U+200D change how some scripts and emoji are written).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace minimt {

inline constexpr size_t kMaxLineBytes = 64 * 1024;

bool is_white_space(char32_t code);       // Unicode White_Space, listed above
bool is_control(char32_t code);           // Unicode Cc (white space or not)
bool is_invisible_format(char32_t code);  // U+00AD, U+061C, U+180E, U+200B-200F, U+202A-202E,
                                          // U+2060-2064, U+2066-206F, U+FEFF

// Cuts text to at most `limit` bytes at a character boundary; true if it was longer.
bool cut_to_limit(std::string& text, size_t limit = kMaxLineBytes);

// The text a tokenizer reads: white space as ' ', control characters and a leading U+FEFF
// removed. Bytes that are not UTF-8 are kept as they are.
std::string normalize_input(const std::string& text);

// Whether text has nothing but white space, control and invisible format characters.
bool is_blank_input(const std::string& text);

// The words of text: its fields split on white space, empty ones left out, after
// normalize_input. Word i of a source in an alignment is words(source)[i].
std::vector<std::string> split_words(const std::string& text);

}  // namespace minimt
