// What `minimt translate` and `minimt score` share: their flags fill one Request (app's
// request.h), and run_lines gives it the CLI's lines (arguments, -i FILE or stdin), files (-o,
// --dump-attention, --view) and terminal (warnings, the progress bar). The run is app's.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "minimt/app/run/request.h"

namespace minimt::cli {

struct LineRunArgs {
  Request request;
  std::string input;               // -i: a file; "" or "-" for stdin
  std::string output;              // -o: a file; "" or "-" for stdout
  std::string format = "text";     // --format, a name of kOutputFormatNames
  std::string dump_attention;      // --dump-attention FILE
  std::string view;                // --view FILE.html
  std::string color = "auto";      // --color: how --show draws (terminal_style.h)
  int width = 0;                   // --width: the columns --show may use; 0: the terminal's
  bool quiet = false;              // no progress bar, no warnings (errors still print)
  std::vector<std::string> texts;  // lines from the command line, instead of -i/stdin
  CLI::App* command = nullptr;     // translate: what was given (the model's defaults fill the rest)
};

// Runs translate or score (args.request.kind); returns the exit status.
int run_lines(LineRunArgs& args);

// -m, the request options' flags (request_flags.h) and the command's own: -i, -o, --format,
// -q, --dump-attention, --view, --color, --width; returns -i.
CLI::Option* add_line_options(CLI::App& command, LineRunArgs& args);

}  // namespace minimt::cli
