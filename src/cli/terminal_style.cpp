#include "cli/terminal_style.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace minimt::cli {
namespace {

constexpr int kDefaultWidth = 80;
constexpr int kMaxWidth = 1000;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

int terminal_width(int fd) {
  winsize size{};
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const std::string columns = environment("COLUMNS");
  if (!columns.empty() && columns.size() <= 4 &&
      columns.find_first_not_of("0123456789") == std::string::npos && std::stoi(columns) > 0)
    return std::stoi(columns);
  return kDefaultWidth;
}

}  // namespace

CLI::Option* add_color_option(CLI::App& command, std::string& target) {
  return command
      .add_option("--color", target,
                  "colours of the heatmap: auto (when the output is a terminal and NO_COLOR is "
                  "not set: 24-bit colour if COLORTERM says so, 256 colours if TERM does, else "
                  "Unicode shades), always, never (plain characters)")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

CLI::Option* add_width_option(CLI::App& command, int& target) {
  return command
      .add_option("--width", target,
                  "columns the heatmap may use (default: the terminal's, else $COLUMNS, else 80); "
                  "wider sentences are split into blocks of columns")
      ->type_name("N")
      ->check(CLI::Range(20, kMaxWidth));
}

TerminalStyle terminal_style(int fd, const std::string& color, int width) {
  TerminalStyle style;
  style.width = width > 0 ? width : std::min(terminal_width(fd), kMaxWidth);
  const bool plain =
      color == "never" || (color != "always" && (!environment("NO_COLOR").empty() || !isatty(fd)));
  if (plain) return style;
  const std::string colorterm = environment("COLORTERM"), term = environment("TERM");
  if (colorterm == "truecolor" || colorterm == "24bit")
    style.colours = TerminalColours::kTrueColour;
  else if (term.find("256color") != std::string::npos || color == "always")
    style.colours = TerminalColours::k256;
  else if (term == "dumb")
    style.colours = TerminalColours::kPlain;
  else
    style.colours = TerminalColours::kShading;
  return style;
}

}  // namespace minimt::cli
