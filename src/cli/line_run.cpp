// minimt translate and minimt score around app's run_request (line_run.h): the lines (arguments,
// -i FILE or stdin), the files (-o, --dump-attention, --view), the terminal (warnings above
// the progress bar) and the exit status.
#include "cli/line_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/path_guard.h"
#include "cli/terminal_style.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/io/line_source.h"
#include "minimt/app/io/output_file.h"
#include "minimt/app/io/output_writer.h"
#include "minimt/app/io/progress.h"
#include "minimt/app/run/generation_defaults.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {
namespace {

// Warnings of one kind named line by line; the rest are counted at the end.
constexpr long long kWarningsPerKind = 10;

// 'a', 'b' and 2 more: the first 8 words of a list, quoted.
std::string listed_words(const std::vector<std::string>& words) {
  std::string text;
  const size_t shown = std::min<size_t>(words.size(), 8);
  for (size_t i = 0; i < shown; ++i) text += (i ? ", '" : "'") + words[i] + "'";
  if (shown < words.size()) text += " and " + std::to_string(words.size() - shown) + " more";
  return text;
}

// The records to -o; each line's warnings and errors to stderr, above the progress bar.
class TerminalSink : public RecordSink {
 public:
  TerminalSink(OutputWriter& out, ProgressBar& progress, bool output_under_bar, bool quiet,
               int max_length, int max_positions)
      : out_(out),
        progress_(progress),
        output_under_bar_(output_under_bar),
        quiet_(quiet),
        max_length_(max_length),
        max_positions_(max_positions) {}

  void notice(const LineNotice& notice) override;
  // On a terminal, the text of a record (pieces from the model file, input text) is made
  // visible; into a file or a pipe it goes byte for byte, as scripts read it.
  bool write(const std::string& record) override {
    return out_.write(to_terminal_ ? visible_lines(record) : record);
  }
  bool batch_written(long long written) override {
    const bool reader_there = out_.flush();  // each batch goes out as soon as it is its turn
    progress_.update(written);
    return reader_there;
  }
  // Above the bar, like the warnings, but as drawn: escaping the picture would print its
  // colours as text (its labels are escaped already, terminal_heatmap.h).
  void picture(const std::string& heatmap) override {
    if (output_under_bar_) progress_.clear();
    progress_.drawing(heatmap);
  }
  void finish();  // the warnings not given line by line, counted

 private:
  OutputWriter& out_;
  const bool to_terminal_ = isatty(out_.fd()) == 1;
  ProgressBar& progress_;
  const bool output_under_bar_, quiet_;
  const int max_length_, max_positions_;
  long long unknown_lines_ = 0, cut_short_lines_ = 0;  // warned about, or not past the first few
};

void TerminalSink::notice(const LineNotice& n) {
  // Output to the terminal that shows the bar goes above the bar, not through it (the bar
  // stays away until the batch is written).
  if (output_under_bar_) progress_.clear();
  const std::string where = "minimt: warning: line " + std::to_string(n.line);
  if (n.truncated && !quiet_)
    progress_.message(where + " is longer than the model's max_positions (" +
                      std::to_string(max_positions_) + " tokens) and was cut");
  const bool unknown = !n.unknown.empty() || !n.target_unknown.empty();
  if (unknown && !quiet_ && unknown_lines_++ < kWarningsPerKind) {
    // score names the side: the source and the target have a tokenizer each.
    if (!n.unknown.empty())
      progress_.message(where + ": the model does not know " + listed_words(n.unknown) +
                        (n.scored ? " in the source" : "") + " (read as <unk>); see minimt vocab");
    if (!n.target_unknown.empty())
      progress_.message(where + ": the model does not know " + listed_words(n.target_unknown) +
                        " in the target (read as <unk>); see minimt vocab --side target");
  }
  if (n.cut_short && !quiet_ && cut_short_lines_++ < kWarningsPerKind)
    progress_.message(where + ": the translation stopped at " + std::to_string(n.output_tokens) +
                      " tokens (--max-length " + std::to_string(max_length_) + ", max_positions " +
                      std::to_string(max_positions_) + ") before its end (eos)");
  if (!n.error.empty())
    progress_.message("minimt: error: line " + std::to_string(n.line) + ": " + n.error);
}

void TerminalSink::finish() {
  out_.flush();  // false if the reader has gone, which is not an error
  if (unknown_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(unknown_lines_ - kWarningsPerKind) +
                      " more lines have words the model does not know (\"unknown\" in jsonl)");
  if (cut_short_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(cut_short_lines_ - kWarningsPerKind) +
                      " more translations stopped before their end (\"cut_short\" in jsonl)");
  progress_.clear();
}

// Refuses outputs that are an input (-i, standard input redirected from a file, the model's
// files) or each other, before any is created.
void check_paths(const LineRunArgs& args, const Model& model, const LineReader* reader) {
  PathGuard guard;
  if (reader)
    guard.input(args.input.empty() || args.input == "-" ? "standard input" : "-i",
                args.input == "-" ? "" : args.input, reader->fd());
  for (const ModelFile& file : model.files()) guard.input("the model file", file.path);
  // Standard output is an output like the files: one output each.
  auto output = [&guard](const std::string& option, const std::string& path) {
    if (path == "-")
      guard.standard_output(option, path);
    else if (!path.empty())
      guard.output(option, path);
  };
  if (args.output.empty())
    guard.standard_output("-o", "");
  else
    output("-o", args.output);
  output("--dump-attention", args.dump_attention);
  output("--view", args.view);
  guard.check();
}

// The files of a run, each created (under a temporary name, output_file.h) before it and put
// in place only once every output is complete.
class RunFiles {
 public:
  explicit RunFiles(const LineRunArgs& args) : args_(args) {
    if (!args.dump_attention.empty()) {
      dump_file_ = std::make_unique<OutputFile>(args.dump_attention);
      dump_stream_ = std::make_unique<OutputFileStream>(*dump_file_);
    }
    if (!args.view.empty()) view_file_ = std::make_unique<OutputFile>(args.view);
    out_ = std::make_unique<OutputWriter>(args.output);
  }

  OutputWriter& out() { return *out_; }
  AttentionSinks attention() {
    return {dump_stream_.get(), view_file_ ? &page_ : nullptr,
            terminal_style(STDERR_FILENO, args_.color, args_.width)};
  }

  void commit(const RunSummary& summary) {
    if (dump_stream_) {
      dump_stream_->flush();
      if (!*dump_stream_) throw IoError("cannot write " + args_.dump_attention);
    }
    if (view_file_) view_file_->write(page_.str());
    out_->commit();
    if (dump_file_) dump_file_->commit();
    if (!view_file_) return;
    view_file_->commit();
    if (!args_.quiet) report_view(view_file_->path(), summary.page, page_.str().size());
  }

 private:
  const LineRunArgs& args_;
  std::unique_ptr<OutputFile> dump_file_;
  std::unique_ptr<OutputFileStream> dump_stream_;
  std::unique_ptr<OutputFile> view_file_;
  std::ostringstream page_;
  std::unique_ptr<OutputWriter> out_;
};

}  // namespace

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
