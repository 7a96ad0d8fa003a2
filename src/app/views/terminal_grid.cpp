#include "app/views/terminal_grid.h"

#include <algorithm>

#include "app/views/terminal_cells.h"
#include "app/views/terminal_text.h"

namespace minimt::view {
namespace {

// The words of `text`: what lies between the spaces a line may break at. The spaces of painted
// cells (from a colour's escape sequence to the reset, "\x1b[0m") are part of the picture, not
// breaks.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out(1);
  bool painted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\x1b[") == 0) painted = text.compare(i, 4, "\x1b[0m") != 0;
    if (text[i] == ' ' && !painted)
      out.emplace_back();
    else
      out.back() += text[i];
  }
  return out;
}

// The characters of a column label written downwards, at most `count` of them (the last "…"
// when cut), each padded to the two columns of a cell.
std::vector<std::string> downwards(const std::string& label, int count) {
  std::vector<std::string> chars;
  for (const TerminalChar& c : terminal_chars(label))
    if (c.width > 0) chars.push_back(c.width == 2 ? c.bytes : c.bytes + " ");
  if (static_cast<int>(chars.size()) > count) {
    chars.resize(count);
    chars.back() = "\u2026 ";
  }
  return chars;
}

int widest(const std::vector<std::string>& labels, int limit) {
  int width = 0;
  for (const std::string& l : labels) width = std::max(width, terminal_width(l));
  return std::min(width, limit);
}

}  // namespace

std::vector<std::string> wrap(const std::string& text, int width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& word : words(text)) {
    if (!line.empty() && terminal_width(line) + 1 + terminal_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(fit_width(line, width));
  for (std::string& l : lines) l = fit_width(l, width);
  return lines;
}

std::string rstrip(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string draw_grid(const Grid& g, int width) {
  std::string out;
  for (const std::string& line : g.heading)
    for (const std::string& part : wrap(line, width)) out += part + "\n";
  int left = widest(g.rows, kMaxRowLabel);
  int right = g.right.empty() ? 0 : widest(g.right, g.right_limit) + 1;
  if (width - left - 1 - right < 2) right = 0;  // too narrow: the cells come first
  left = std::max(1, std::min(left, width - 3));
  const int ncols = static_cast<int>(g.cols.size()), nrows = static_cast<int>(g.rows.size());
  const int per_block = std::max(1, (width - left - 1 - right) / 2);
  const int lines = widest(g.cols, kMaxColumnLabel);
  std::vector<std::vector<std::string>> column_chars;
  for (const std::string& label : g.cols) column_chars.push_back(downwards(label, lines));
  for (int first = 0; first < ncols; first += per_block) {
    const int last = std::min(ncols, first + per_block);
    if (per_block < ncols)
      out += "columns " + std::to_string(first + 1) + "-" + std::to_string(last) + " of " +
             std::to_string(ncols) + "\n";
    for (int k = 0; k < lines; ++k) {
      std::string line(left + 1, ' ');
      for (int j = first; j < last; ++j)
        line += k < static_cast<int>(column_chars[j].size()) ? column_chars[j][k] : "  ";
      out += rstrip(line) + "\n";
    }
    for (int i = 0; i < nrows; ++i) {
      std::string line = pad_width(fit_width(g.rows[i], left), left, true) + " ";
      for (int j = first; j < last; ++j) line += g.cell(i, j);
      line += end_of_cells(g.colours);
      if (right > 0) line += " " + fit_width(g.right[i], right - 1);
      out += rstrip(line) + "\n";
    }
  }
  for (const std::string& part : wrap(g.legend, width)) out += part + "\n";
  return out;
}

}  // namespace minimt::view
