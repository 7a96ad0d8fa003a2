// minimt translate and minimt score around app's run_request (line_run.h): the lines (arguments,
// -i FILE or stdin), the files (run_files.h: -o, --dump-attention, --view), the terminal
// (terminal_sink.h: warnings above the progress bar) and the exit status.
#include "cli/line_run.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/run_files.h"
#include "cli/terminal_sink.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/io/line_source.h"
#include "minimt/app/io/progress.h"
#include "minimt/app/run/generation_defaults.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "minimt/base/error.h"

namespace minimt::cli {

int run_lines(LineRunArgs& args) {
  // A reader that goes away (`minimt translate ... | head -3`) must end the run quietly:
  // without SIGPIPE, writes to the closed pipe fail with EPIPE and OutputWriter reports it.
  ignore_sigpipe();
  Request& request = args.request;
  request.record.dump_attention = !args.dump_attention.empty();
  request.record.view = !args.view.empty();
  enum_value(kOutputFormatNames, args.format, request.format);  // --format checked the name
  check_request(request);

  std::unique_ptr<LineReader> reader;  // opened first: a missing input fails before the model
  if (args.texts.empty()) reader = std::make_unique<LineReader>(args.input);
  if (complete_seed(request) && !args.quiet)
    fprintf(stderr, "minimt: sampling with --seed %llu\n",
            static_cast<unsigned long long>(*request.search.seed));
  std::shared_ptr<const Model> model = load_model(request.model, request.compute_type);
  const auto given = [&args](const std::string& field) {
    return args.command && args.command->count(field_name(field, FieldSpelling::kOption)) > 0;
  };
  const std::string taken = apply_generation_defaults(request, model->config(), given);
  if (!args.quiet && !taken.empty())
    fprintf(stderr, "minimt: the model's settings: %s\n", taken.c_str());
  const RequestPlan plan = plan_request(request, *model);
  check_paths(args, *model, reader.get());
  if (!args.quiet)
    for (const std::string& warning : plan.warnings)
      fprintf(stderr, "minimt: warning: %s\n", warning.c_str());

  RunFiles files(args);
  const bool show_progress = !args.quiet && reader && reader->regular_file() && isatty(2);
  ProgressBar progress(show_progress ? reader->count_remaining_lines() : 0, show_progress);
  TerminalSink sink(files.out(), progress, show_progress && isatty(files.out().fd()), args.quiet,
                    request.search.max_length, model->config().max_positions);
  std::unique_ptr<LineSource> lines;
  if (reader)
    lines = std::make_unique<ReaderLines>(*reader);
  else
    lines = std::make_unique<MemoryLines>(args.texts);
  const RunSummary summary = run_request(model, plan, *lines, sink, files.attention());
  sink.finish();
  files.commit(summary);
  return summary.failures > 0 ? 1 : 0;
}

}  // namespace minimt::cli
