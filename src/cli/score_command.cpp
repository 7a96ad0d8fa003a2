// minimt score: how likely is a given translation? Teacher forcing, as in training: the target
// is fed to the decoder in one pass and each of its tokens gets its log-probability. The run
// (lines in, records out, dumps, page, alignment) is line_run.h's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/path_guard.h"

namespace minimt::cli {

Command add_score(CLI::App& app) {
  auto args = std::make_shared<LineRunArgs>();
  args->request.kind = RequestKind::kScore;
  CLI::App* command = app.add_subcommand(
      "score",
      "score given translations by teacher forcing: SOURCE TARGET arguments, or the "
      "SOURCE<TAB>TARGET lines of a file or stdin; prints the log-probability (natural log, "
      "eos included) of each target");
  CLI::Option* input = add_io_options(*command, *args);
  add_attention_options(*command, *args);
  add_align_options(*command, *args);
  auto pairs = std::make_shared<std::vector<std::string>>();
  command
      ->add_option("pair", *pairs,
                   "SOURCE TARGET, SOURCE TARGET, ...: pairs of arguments; with none, read lines")
      ->excludes(input);
  return {command, [args, pairs] {
            if (pairs->size() % 2 != 0)
              throw UsageError("score takes SOURCE TARGET pairs: " + std::to_string(pairs->size()) +
                               " arguments leave the last source without a target");
            for (size_t i = 0; i < pairs->size(); i += 2) {
              std::string source = (*pairs)[i];  // its own tabs are white space, not columns
              std::replace(source.begin(), source.end(), '\t', ' ');
              args->texts.push_back(source + '\t' + (*pairs)[i + 1]);
            }
            return run_lines(*args);
          }};
}

}  // namespace minimt::cli
