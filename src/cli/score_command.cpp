// minimt score: how likely is a given translation? Teacher forcing, as in training: the target
// is fed to the decoder in one pass and each of its tokens gets its log-probability. This file
// declares the options, which fill a Request (app/run/request.h) of kind score; line_run.h runs it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/path_guard.h"

namespace minimt::cli {
namespace {

void add_score_options(CLI::App& command, LineRunArgs& args) {
  command.description(
      "score given translations by teacher forcing: SOURCE TARGET arguments, or the "
      "SOURCE<TAB>TARGET lines of a file or stdin; prints the log-probability (natural log, "
      "eos included) of each target");
  args.request.kind = RequestKind::kScore;
  CLI::Option* input = add_line_options(command, args);
  command
      .add_option("pair", args.texts,
                  "SOURCE TARGET, SOURCE TARGET, ...: pairs of arguments; with none, read lines")
      ->excludes(input);
}

// The pairs of arguments become SOURCE<TAB>TARGET lines, as -i gives them.
int run_score(LineRunArgs& args) {
  std::vector<std::string>& pairs = args.texts;
  if (pairs.size() % 2 != 0)
    throw UsageError("score takes SOURCE TARGET pairs: " + std::to_string(pairs.size()) +
                     " arguments leave the last source without a target");
  std::vector<std::string> lines;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    std::string source = pairs[i];  // its own tabs are white space, not columns
    std::replace(source.begin(), source.end(), '\t', ' ');
    lines.push_back(source + '\t' + pairs[i + 1]);
  }
  pairs = std::move(lines);
  return run_lines(args);
}

}  // namespace

Command add_score(CLI::App& app) {
  return add_command<LineRunArgs>(app, "score", add_score_options, run_score);
}

}  // namespace minimt::cli
