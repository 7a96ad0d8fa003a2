// ProgressBar: one line on stderr, redrawn in place, showing lines done / total, lines per
// second and the time left. Also the way to print messages on stderr while the bar is shown:
// message() puts them above the bar instead of through it.
#pragma once

#include <chrono>
#include <string>

namespace minimt {

class ProgressBar {
 public:
  // With enabled = false nothing is ever drawn; message() still prints. The caller decides when
  // a bar is wanted (stderr a terminal, a known total, no --quiet).
  ProgressBar(long long total, bool enabled, std::string unit = "lines");
  ~ProgressBar();  // clears the bar
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Shows the bar (again, if clear() erased it); its numbers change at most 10 times a second.
  void update(long long done);
  void message(const std::string& line);  // one line on stderr, above the bar, made visible
  // Lines minimt drew (a heatmap), above the bar as drawn: its colours are meant for the
  // terminal, and the text in it (tokens) was made visible when it was drawn.
  void drawing(const std::string& lines);
  void clear();  // erases the bar, e.g. before output to the same terminal; update() restores it

 private:
  void draw();                               // with fresh numbers
  void restore();                            // as last drawn
  static void put(const std::string& text);  // write(2) to stderr, ignoring errors

  long long total_;
  bool enabled_;
  std::string unit_;
  long long done_ = 0;
  bool shown_ = false;
  std::string text_;  // the bar as last drawn
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "42s", "3m07s", "2h05m": a duration for people.
std::string format_duration(double seconds);

}  // namespace minimt
