// The layout of the terminal heatmaps (terminal_heatmap.h): a grid of painted cells with its
// row labels on the left, optional labels on the right and column labels written downwards, cut
// into blocks of columns that fit the terminal's width, under prose lines wrapped to it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

inline constexpr int kMaxRowLabel = 16;     // columns of the pieces left of the rows
inline constexpr int kMaxRightLabel = 24;   // of the predicted piece and its probability
inline constexpr int kMaxColumnLabel = 10;  // lines of the pieces written downwards

// What one drawing shows, whatever chose it.
struct Grid {
  std::vector<std::string> heading;            // prose lines above, wrapped to the width
  std::vector<std::string> rows, cols, right;  // labels, terminal_escape'd; right may be empty
  int right_limit = kMaxRightLabel;            // the most columns a right label takes
  std::function<std::string(int, int)> cell;   // the painted cell of (row, col)
  TerminalColours colours = TerminalColours::kPlain;
  std::string legend;  // one line under it
};

// `text` in lines of at most `width` columns, broken at spaces (a longer word is cut); the
// spaces of painted cells are part of the picture, not breaks.
std::vector<std::string> wrap(const std::string& text, int width);

// `line` without its trailing spaces.
std::string rstrip(std::string line);

// The grid in blocks of as many columns as fit `width`, each line whole: the heading, per
// block ("columns 3-6 of 9" when there are several) the column labels and a line per row, then
// the legend.
std::string draw_grid(const Grid& grid, int width);

}  // namespace minimt::view
