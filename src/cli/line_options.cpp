// The flags of translate and score (line_run.h): the request options' flags from app's table
// (request_flags.h), with the command's own flags between them: the files, the terminal.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/option_parsing.h"
#include "cli/request_flags.h"
#include "cli/terminal_style.h"

namespace minimt::cli {

CLI::Option* add_line_options(CLI::App& command, LineRunArgs& args) {
  const bool scoring = args.request.kind == RequestKind::kScore;
  add_model_option(command, args.request.model);
  RequestFlags flags(command, args.request);
  flags.add_through("max_length");  // --compute-type, --ablate-heads, --max-length
  CLI::Option* input =
      command.add_option("-i,--input", args.input, "read lines from FILE (default, or -: stdin)")
          ->check(non_empty_path())
          ->type_name("FILE");
  command.add_option("-o,--output", args.output, "write to FILE (default, or -: stdout)")
      ->check(non_empty_path())
      ->type_name("FILE");
  command
      .add_option("--format", args.format,
                  scoring ? "text: one score per line; jsonl: one JSON object per line"
                          : "text: one translation per line; jsonl: one JSON object per line")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  flags.add_through("fail_fast");  // --threads, --batch-size, --fail-fast
  command.add_flag("-q,--quiet", args.quiet, "no progress bar and no warnings");
  flags.add_through("seed");  // translate: the search and the sampling
  command
      .add_option("--dump-attention", args.dump_attention,
                  "write the attention weights to this JSON file (one entry per line)")
      ->check(non_empty_path())
      ->type_name("FILE");
  flags.add_through("dump_heads");  // --dump-types, --dump-layers, --dump-heads
  command
      .add_option("--view", args.view,
                  "also render the attention as one self-contained HTML page (as minimt view "
                  "does; it shows what --dump-* select when given)")
      ->check(non_empty_path())
      ->type_name("FILE.html");
  flags.add_through("show");
  CLI::Option* show = command.get_option("--show");
  add_color_option(command, args.color)->needs(show);
  add_width_option(command, args.width)->needs(show);
  flags.finish();  // what the dump adds, the alignment
  return input;
}

}  // namespace minimt::cli
