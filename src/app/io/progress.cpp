#include "minimt/app/io/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "minimt/base/visible_text.h"

namespace minimt {
namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

int terminal_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

std::string format_duration(double seconds) {
  long long s = std::llround(std::max(0.0, seconds));
  char text[32];
  if (s < 60)
    std::snprintf(text, sizeof text, "%llds", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, s / 60 % 60);
  return text;
}

ProgressBar::ProgressBar(long long total, bool enabled, std::string unit)
    : total_(std::max(total, 0LL)), enabled_(enabled), unit_(std::move(unit)) {
  start_ = std::chrono::steady_clock::now();
  if (enabled_) draw();
}

ProgressBar::~ProgressBar() {
  clear();
}

void ProgressBar::put(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += n;
  }
}

void ProgressBar::update(long long done) {
  done_ = done;
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ >= kRedrawEvery || done == total_)
    draw();
  else if (!shown_)
    restore();
}

void ProgressBar::message(const std::string& text) {
  const std::string line = visible_text(text);  // it quotes input text, pieces, names
  if (shown_) {
    put("\r\033[K" + line + "\n");
    restore();
  } else {
    put(line + "\n");
  }
}

void ProgressBar::drawing(const std::string& lines) {
  if (shown_) {
    put("\r\033[K" + lines);
    restore();
  } else {
    put(lines);
  }
}

void ProgressBar::restore() {
  put("\r" + text_ + "\033[K");
  shown_ = true;
}

void ProgressBar::clear() {
  if (shown_) put("\r\033[K");
  shown_ = false;
}

void ProgressBar::draw() {
  auto now = std::chrono::steady_clock::now();
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? done_ / elapsed : 0.0;
  const double fraction = total_ > 0 ? std::min(1.0, double(done_) / total_) : 1.0;

  char counts[96], tail[96];
  std::snprintf(counts, sizeof counts, "%lld/%lld %s", done_, total_, unit_.c_str());
  std::string left = done_ >= total_ ? "done"
                     : rate > 0      ? format_duration((total_ - done_) / rate) + " left"
                                     : "? left";
  std::snprintf(tail, sizeof tail, " %3d%%  %.0f %s/s  %s", int(fraction * 100), rate,
                unit_.c_str(), left.c_str());
  std::string text = counts;
  const int columns = terminal_columns() - 1;  // never write into the last column
  const int bar = columns - static_cast<int>(text.size() + std::string(tail).size()) - 3;
  if (bar >= 10) {
    int filled = static_cast<int>(fraction * bar);
    text += " [" + std::string(filled, '#') + std::string(bar - filled, '.') + "]";
  }
  text += tail;
  if (static_cast<int>(text.size()) > columns) text.resize(std::max(columns, 0));
  text_ = text;
  restore();
}

}  // namespace minimt
