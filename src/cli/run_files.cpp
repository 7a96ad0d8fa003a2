// The files of translate and score (run_files.h).
#include "cli/run_files.h"

#include <unistd.h>

#include "cli/commands.h"
#include "cli/path_guard.h"
#include "cli/terminal_style.h"
#include "minimt/base/error.h"

namespace minimt::cli {

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

RunFiles::RunFiles(const LineRunArgs& args) : args_(args) {
  if (!args.dump_attention.empty()) {
    dump_file_ = std::make_unique<OutputFile>(args.dump_attention);
    dump_stream_ = std::make_unique<OutputFileStream>(*dump_file_);
  }
  if (!args.view.empty()) view_file_ = std::make_unique<OutputFile>(args.view);
  out_ = std::make_unique<OutputWriter>(args.output);
}

AttentionSinks RunFiles::attention() {
  return {dump_stream_.get(), view_file_ ? &page_ : nullptr,
          terminal_style(STDERR_FILENO, args_.color, args_.width)};
}

void RunFiles::commit(const RunSummary& summary) {
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

}  // namespace minimt::cli
