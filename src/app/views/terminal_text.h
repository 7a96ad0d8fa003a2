// Text for the terminal heatmaps (terminal_heatmap.h): labels made safe (view_text.h's
// terminal_escape), measured in terminal columns and cut to fit.
#pragma once

#include <string>
#include <vector>

namespace minimt::view {

// One character of terminal text and the columns it takes (0, 1 or 2).
struct TerminalChar {
  std::string bytes;
  int width = 1;
};

// The characters of `text` (already terminal_escape'd): East Asian wide characters and emoji
// take 2 columns, combining marks 0, the rest 1. An escape sequence ("\x1b[48;5;18m") is one
// of 0 columns: labels hold none once escaped, so it is one of the picture's colours.
std::vector<TerminalChar> terminal_chars(const std::string& text);

// The columns `text` takes.
int terminal_width(const std::string& text);

// `text` cut to at most `width` columns, with "…" where it was cut.
std::string fit_width(const std::string& text, int width);

// `text` with spaces added on the left (right_align) or the right to `width` columns.
std::string pad_width(const std::string& text, int width, bool right_align);

}  // namespace minimt::view
