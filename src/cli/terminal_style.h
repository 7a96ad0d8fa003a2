// How the terminal draws the heatmaps of minimt show and translate --show: from --color, the
// environment (NO_COLOR, COLORTERM, TERM, COLUMNS) and whether the output is a terminal.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "minimt/app/views/attention_show.h"

namespace minimt::cli {

// --color WHEN (auto, always, never) into `target`.
CLI::Option* add_color_option(CLI::App& command, std::string& target);
// --width N into `target` (0: the terminal's).
CLI::Option* add_width_option(CLI::App& command, int& target);

// For output on file descriptor `fd`:
//   never, or auto with NO_COLOR set (not empty) or fd not a terminal: plain ASCII characters;
//   otherwise 24-bit colour when COLORTERM is truecolor or 24bit, 256 colours when TERM names
//   a 256-colour terminal, else Unicode shades (always: 256 colours at least);
// the width: `width` if not 0, else the terminal's, else COLUMNS, else 80.
TerminalStyle terminal_style(int fd, const std::string& color, int width);

}  // namespace minimt::cli
