// minimt translate: lines in, one output record per line out, in input order, streamed.
// Lines come from the command line, a file (-i) or stdin; batches of them are translated on
// worker threads (batch_runner.h) and written to -o or stdout as text or JSON Lines.
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "minimt/alignment.h"
#include "minimt/attention_dump.h"
#include "minimt/attention_view.h"
#include "minimt/batch_runner.h"
#include "minimt/error.h"
#include "minimt/line_reader.h"
#include "minimt/output_record.h"
#include "minimt/output_writer.h"
#include "minimt/progress.h"
#include "minimt/translator.h"

namespace minimt::cli {
namespace {

int available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

DumpSelection dump_selection(const TranslateArgs& args) {
  DumpSelection selection;
  if (!args.dump_types.empty()) {
    selection.encoder = selection.decoder = selection.cross = false;
    for (const auto& type : args.dump_types) {
      if (type == "encoder") selection.encoder = true;
      if (type == "decoder") selection.decoder = true;
      if (type == "cross") selection.cross = true;
    }
  }
  selection.layers = args.dump_layers;
  selection.heads = args.dump_heads;
  return selection;
}

// Refuses `-o` naming the file `-i` reads: opening it for writing would empty it first.
void check_not_same_file(const LineReader& reader, const std::string& output) {
  if (output.empty() || output == "-") return;
  struct stat in, out;  // filled by fstat and stat before any use
  if (::fstat(reader.fd(), &in) == 0 && ::stat(output.c_str(), &out) == 0 &&
      in.st_dev == out.st_dev && in.st_ino == out.st_ino && S_ISREG(in.st_mode))
    throw IoError("cannot write " + output + ": it is the input file");
}

// The attention dump file, written in input order by the writing thread.
class DumpFile {
 public:
  DumpFile(const std::string& path, const Model& model, const DumpSelection& selection)
      : path_(path) {
    {  // check the selection against the model before creating the file
      std::ostream nowhere(nullptr);
      AttentionDumpWriter check(nowhere, model, selection);
    }
    file_.open(path);
    if (!file_) throw IoError("cannot write " + path);
    writer_ = std::make_unique<AttentionDumpWriter>(file_, model, selection);
  }
  void add(const Translation& translation) { writer_->add(translation); }
  void finish() {
    writer_->finish();
    file_.close();
    if (!file_) throw IoError("cannot write " + path_);
  }

 private:
  std::string path_;
  std::ofstream file_;
  std::unique_ptr<AttentionDumpWriter> writer_;
};

// --align: the translation's word alignment after a tab (text) or as "alignment" (jsonl).
std::string with_alignment(std::string record, const std::string& links, bool jsonl) {
  if (!jsonl) {
    record.pop_back();  // '\n'
    return record + '\t' + links + '\n';
  }
  const std::string time = ",\"time_ms\":";
  size_t at = record.rfind(time);
  if (at == std::string::npos) at = record.rfind('}');
  return record.insert(at, ",\"alignment\":\"" + links + "\"");
}

// --view: the dump kept in memory, rendered at the end as minimt view would.
class ViewFile {
 public:
  ViewFile(std::string path, const Model& model, const DumpSelection& selection, bool quiet)
      : path_(std::move(path)), quiet_(quiet), writer_(text_, model, selection) {}
  void add(const Translation& translation) { writer_.add(translation); }
  void finish() {
    writer_.finish();
    std::istringstream in(text_.str());
    text_.str("");
    write_view(read_attention_dump(in, "the attention of this run"), path_, ViewOptions(), !quiet_);
  }

 private:
  std::string path_;
  bool quiet_;
  std::ostringstream text_;
  AttentionDumpWriter writer_;
};

}  // namespace

int run_translate(const TranslateArgs& args) {
  // A reader that goes away (`minimt translate ... | head -3`) must end the run quietly:
  // without SIGPIPE, writes to the closed pipe fail with EPIPE and OutputWriter reports it.
  ignore_sigpipe();

  std::unique_ptr<LineReader> reader;  // opened first: a missing input fails before the model
  if (args.texts.empty()) reader = std::make_unique<LineReader>(args.input);
  Translator translator(load_model(args.model));
  const Model& model = translator.model();

  BatchOptions options;
  options.threads = args.threads > 0 ? args.threads : available_cores();
  options.batch_size = std::max(args.batch_size, 1);
  options.translate.max_length = args.max_length;
  options.translate.record_attention =
      !args.dump_attention.empty() || !args.view.empty() || args.align;
  AlignmentOptions alignment;
  alignment.layer = args.align_layer;
  alignment.heads = args.align_heads;
  alignment.rule = parse_align_rule(args.align_rule);
  if (args.align)
    check_alignment_options(alignment, model.config().decoder_layers, model.config().num_heads);

  std::unique_ptr<DumpFile> dump;
  if (!args.dump_attention.empty())
    dump = std::make_unique<DumpFile>(args.dump_attention, model, dump_selection(args));
  std::unique_ptr<ViewFile> view;
  if (args.view == "-")
    throw IoError("--view needs a file name: the translations go to standard output");
  if (!args.view.empty())
    view = std::make_unique<ViewFile>(args.view, model, dump_selection(args), args.quiet);
  if (reader) check_not_same_file(*reader, args.output);
  OutputWriter out(args.output);

  const bool jsonl = args.format == "jsonl";
  const bool show_progress = !args.quiet && reader && reader->regular_file() && isatty(2);
  ProgressBar progress(show_progress ? reader->count_remaining_lines() : 0, show_progress);
  const std::string max_positions = std::to_string(model.config().max_positions);
  long long failures = 0, written = 0;

  BatchCallbacks callbacks;
  callbacks.render = [&](LineBatch& batch) {  // worker threads
    // time_ms: the batch's wall time shared equally among its lines.
    const double per_line = batch.milliseconds / static_cast<double>(batch.lines.size());
    for (size_t i = 0; i < batch.translations.size(); ++i) {
      Translation& t = batch.translations[i];
      batch.records.push_back(jsonl ? jsonl_record(model, t, batch.first_line + i, per_line)
                                    : text_record(t));
      if (args.align && (t.ok() || !jsonl))  // jsonl: a failed line has only "error"
        batch.records.back() = with_alignment(
            batch.records.back(), to_pharaoh(align_translation(t, model, alignment).links), jsonl);
      if (!dump && !view) t.attention.reset();  // only the alignment needed it
    }
  };
  // Output to the terminal that shows the bar goes above the bar, not through it.
  const bool output_under_bar = show_progress && isatty(out.fd());
  callbacks.write = [&](LineBatch& batch) {  // this thread, in input order
    if (output_under_bar) progress.clear();
    for (size_t i = 0; i < batch.translations.size(); ++i) {
      const Translation& t = batch.translations[i];
      const std::string line = std::to_string(batch.first_line + i);
      if (t.truncated && !args.quiet)
        progress.message("minimt: warning: line " + line +
                         " is longer than the model's max_positions (" + max_positions +
                         " tokens) and was cut");
      if (!t.ok()) {
        ++failures;
        progress.message("minimt: error: line " + line + ": " + t.error);
      }
      if (!out.write(batch.records[i])) return false;  // the reader is gone
      if (dump) dump->add(t);
      if (view) view->add(t);
      ++written;
      if (!t.ok() && args.fail_fast) return false;
    }
    const bool reader_there = out.flush();  // each batch goes out as soon as it is its turn
    progress.update(written);
    return reader_there;
  };

  if (reader)
    translate_lines(translator, *reader, options, callbacks);
  else
    translate_lines(translator, args.texts, options, callbacks);

  out.flush();  // false if the reader has gone, which is not an error
  progress.clear();
  if (dump) dump->finish();
  if (view) view->finish();
  return failures > 0 ? 1 : 0;
}

}  // namespace minimt::cli
