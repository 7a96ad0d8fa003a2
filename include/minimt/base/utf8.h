// UTF-8 validation: an input line that is not UTF-8 is refused before it reaches the tokenizer.
#pragma once

#include <string>

namespace minimt {

// Byte offset of the first invalid UTF-8 sequence in text, or -1 if it is all valid.
long long find_invalid_utf8(const std::string& text);

}  // namespace minimt
