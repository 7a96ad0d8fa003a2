// Text that minimt did not write itself (file and folder names, config strings, pieces, input
// text), made safe to print where people read it: a terminal acts on control characters (an
// ESC sequence can move the cursor, rewrite the screen or set the window title) and shows
// invalid UTF-8 as nothing, or as whatever the bytes after it make.
#pragma once

#include <string>

namespace minimt {

// `text` with every control character and every byte that is not part of valid UTF-8 written
// out visibly: tab, newline and carriage return as \t, \n, \r; the other C0 controls and DEL
// as \xHH; C1 controls (U+0080 to U+009F) as \u0080 to \u009F; invalid bytes as \xHH, one by
// one. Everything else, other UTF-8 characters and a backslash included, is kept as it is, so
// that ordinary text comes out byte for byte.
std::string visible_text(const std::string& text);

// The same for text laid out in lines and columns (a record of translate's text output on a
// terminal): tab and newline are kept, every other control and invalid byte escaped. Applied
// to JSON text it keeps the JSON valid and its meaning (\u0085 is JSON's own escape).
std::string visible_lines(const std::string& text);

// Whether visible_text(text) == text: no control character and valid UTF-8.
bool is_visible_text(const std::string& text);

}  // namespace minimt
