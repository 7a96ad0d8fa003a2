// minimt translate: lines in, one output record per line out, in input order, streamed.
// Lines come from the command line, a file (-i) or stdin; batches of them are translated on
// worker threads (batch_runner.h) and written to -o or stdout as text or JSON Lines.
#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <thread>

#include "cli/attention_files.h"
#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "minimt/app/alignment.h"
#include "minimt/app/batch_runner.h"
#include "minimt/app/line_reader.h"
#include "minimt/app/output_record.h"
#include "minimt/app/output_writer.h"
#include "minimt/app/progress.h"
#include "minimt/app/translator.h"
#include "minimt/base/error.h"

namespace minimt::cli {
namespace {

// The most lines --threads times --batch-size may ask for (see check_batch_limit).
constexpr int kMaxLinesPerRound = 65536;

struct TranslateArgs {
  std::string model;
  int max_length = 256;
  std::string input;            // -i: a file; "" or "-" for stdin
  std::string output;           // -o: a file; "" or "-" for stdout
  std::string format = "text";  // text or jsonl
  int threads = 0;              // worker threads; 0: one per core
  int batch_size = 16;          // lines per Translator::translate call
  bool fail_fast = false;       // stop at the first line that fails
  bool quiet = false;           // no progress bar, no warnings (errors still print)
  std::string dump_attention;
  std::vector<std::string> dump_types;     // encoder, decoder, cross; empty: all
  std::vector<int> dump_layers;            // negative counts from the end; empty: all
  std::vector<int> dump_heads;             // empty: all
  std::string view;                        // --view: also render the attention as this HTML page
  bool align = false;                      // --align: a tab and the word alignment after each line
  int align_layer = -1;                    // the decoder layer it reads; negative from the end
  std::vector<int> align_heads;            // the heads it averages; empty: all
  std::string align_rule = "best-source";  // best-source, best-target or intersection
  std::vector<std::string> texts;          // sentences from the command line, instead of lines
};

int available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

BatchOptions batch_options(const TranslateArgs& args) {
  BatchOptions options;
  options.threads = args.threads > 0 ? args.threads : available_cores();
  options.batch_size = std::max(args.batch_size, 1);
  options.translate.max_length = args.max_length;
  options.translate.record_attention =
      !args.dump_attention.empty() || !args.view.empty() || args.align;
  return options;
}

// The --align-* options, checked against the model when --align is given.
AlignmentOptions alignment_options(const TranslateArgs& args, const Model& model) {
  AlignmentOptions alignment;
  alignment.layer = args.align_layer;
  alignment.heads = args.align_heads;
  alignment.rule = parse_align_rule(args.align_rule);
  if (args.align)
    check_alignment_options(alignment, model.config().decoder_layers, model.config().num_heads);
  return alignment;
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

std::unique_ptr<DumpFile> open_dump(const TranslateArgs& args, const Model& model) {
  if (args.dump_attention.empty()) return nullptr;
  return std::make_unique<DumpFile>(args.dump_attention, model, dump_selection(args));
}

std::unique_ptr<ViewFile> open_view(const TranslateArgs& args, const Model& model) {
  if (args.view == "-")
    throw IoError("--view needs a file name: the translations go to standard output");
  if (args.view.empty()) return nullptr;
  return std::make_unique<ViewFile>(args.view, model, dump_selection(args), args.quiet);
}

// Refuses outputs that are an input (-i, standard input redirected from a file, the model's
// files) or each other, before any is created.
void check_paths(const TranslateArgs& args, const Model& model, const LineReader* reader) {
  PathGuard guard;
  if (reader)
    guard.input(args.input.empty() || args.input == "-" ? "standard input" : "-i",
                args.input == "-" ? "" : args.input, reader->fd());
  for (const ModelFile& file : model.files()) guard.input("the model file", file.path);
  guard.output("-o", args.output);
  guard.output("--dump-attention", args.dump_attention);
  guard.output("--view", args.view);
  guard.check();
}

// Lines in flight are at most 4 batches per thread (batch_runner.cpp): bound them, so that a
// typo (--batch-size 65536 --threads 1024) is refused rather than run out of memory.
void check_batch_limit(const BatchOptions& options) {
  if (static_cast<long long>(options.threads) * options.batch_size > kMaxLinesPerRound)
    throw UsageError("--threads " + std::to_string(options.threads) + " times --batch-size " +
                     std::to_string(options.batch_size) + " is more than " +
                     std::to_string(kMaxLinesPerRound) + " lines at once");
}

// One run of minimt translate: its outputs, and what happens to each translated batch. The
// members are declared in the order in which they are checked and opened.
class TranslateRun {
 public:
  TranslateRun(const TranslateArgs& args, const Model& model, const LineReader* reader)
      : args_(args),
        model_(model),
        alignment_(alignment_options(args, model)),
        dump_(open_dump(args, model)),
        view_(open_view(args, model)),
        out_(args.output),
        show_progress_(!args.quiet && reader && reader->regular_file() && isatty(2)),
        progress_(show_progress_ ? reader->count_remaining_lines() : 0, show_progress_),
        // Output to the terminal that shows the bar goes above the bar, not through it.
        output_under_bar_(show_progress_ && isatty(out_.fd())) {}

  void render(LineBatch& batch) const;  // worker threads: the records of a translated batch
  bool write(LineBatch& batch);         // this thread, in input order; false stops the run
  int finish();                         // the exit status

 private:
  void report(const Translation& translation, long long line);

  const TranslateArgs& args_;
  const Model& model_;
  const AlignmentOptions alignment_;
  std::unique_ptr<DumpFile> dump_;
  std::unique_ptr<ViewFile> view_;
  OutputWriter out_;
  const bool show_progress_;
  ProgressBar progress_;
  const bool output_under_bar_;
  long long failures_ = 0, written_ = 0;
};

void TranslateRun::render(LineBatch& batch) const {
  // time_ms: the batch's wall time shared equally among its lines.
  const double per_line = batch.milliseconds / static_cast<double>(batch.lines.size());
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    Translation& t = batch.translations[i];
    OutputRecord record = make_output_record(model_, t, batch.first_line + i, per_line);
    if (args_.align) record.alignment = to_pharaoh(align_translation(t, model_, alignment_).links);
    batch.records.push_back(args_.format == "jsonl" ? jsonl_line(record) : text_line(record));
    if (!dump_ && !view_) t.attention.reset();  // only the alignment needed it
  }
}

// The warning for a cut line and the error of a failed one, on stderr.
void TranslateRun::report(const Translation& t, long long line) {
  if (t.truncated && !args_.quiet)
    progress_.message("minimt: warning: line " + std::to_string(line) +
                      " is longer than the model's max_positions (" +
                      std::to_string(model_.config().max_positions) + " tokens) and was cut");
  if (!t.ok()) {
    ++failures_;
    progress_.message("minimt: error: line " + std::to_string(line) + ": " + t.error);
  }
}

bool TranslateRun::write(LineBatch& batch) {
  if (output_under_bar_) progress_.clear();
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    const Translation& t = batch.translations[i];
    report(t, batch.first_line + i);
    if (!out_.write(batch.records[i])) return false;  // the reader is gone
    if (dump_) dump_->add(t);
    if (view_) view_->add(t);
    ++written_;
    if (!t.ok() && args_.fail_fast) return false;
  }
  const bool reader_there = out_.flush();  // each batch goes out as soon as it is its turn
  progress_.update(written_);
  return reader_there;
}

int TranslateRun::finish() {
  out_.flush();  // false if the reader has gone, which is not an error
  progress_.clear();
  if (dump_) dump_->finish();
  if (view_) view_->finish();
  // Every output is complete: only now do they replace the files they name.
  out_.commit();
  if (dump_) dump_->commit();
  if (view_) view_->commit();
  return failures_ > 0 ? 1 : 0;
}

int run_translate(const TranslateArgs& args) {
  // A reader that goes away (`minimt translate ... | head -3`) must end the run quietly:
  // without SIGPIPE, writes to the closed pipe fail with EPIPE and OutputWriter reports it.
  ignore_sigpipe();

  std::unique_ptr<LineReader> reader;  // opened first: a missing input fails before the model
  if (args.texts.empty()) reader = std::make_unique<LineReader>(args.input);
  const BatchOptions options = batch_options(args);
  check_batch_limit(options);
  Translator translator(load_model(args.model));
  check_paths(args, translator.model(), reader.get());
  TranslateRun run(args, translator.model(), reader.get());

  BatchCallbacks callbacks;
  callbacks.render = [&](LineBatch& batch) { run.render(batch); };
  callbacks.write = [&](LineBatch& batch) { return run.write(batch); };
  if (reader)
    translate_lines(translator, *reader, options, callbacks);
  else
    translate_lines(translator, args.texts, options, callbacks);
  return run.finish();
}

// -m, --max-length, -i, -o, --format, --threads, --batch-size, --fail-fast, -q; returns -i.
CLI::Option* add_io_options(CLI::App& command, TranslateArgs& args) {
  add_model_option(command, args.model);
  command
      .add_option("--max-length", args.max_length,
                  "most tokens to generate per sentence, eos included (capped at max_positions)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  CLI::Option* input =
      command.add_option("-i,--input", args.input, "read lines from FILE (default, or -: stdin)")
          ->type_name("FILE");
  command.add_option("-o,--output", args.output, "write to FILE (default, or -: stdout)")
      ->type_name("FILE");
  command
      .add_option("--format", args.format,
                  "text: one translation per line; jsonl: one JSON object per line")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  command
      .add_option("--threads", args.threads,
                  "lines translated in parallel (default 0: one thread per core)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  command
      .add_option("--batch-size", args.batch_size,
                  "consecutive lines per batch, the unit of work of a thread (--threads times "
                  "--batch-size at most 65536)")
      ->type_name("N")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  command.add_flag("--fail-fast", args.fail_fast,
                   "stop at the first line that cannot be translated");
  command.add_flag("-q,--quiet", args.quiet, "no progress bar and no warnings");
  return input;
}

// A LIST option (one argument, e.g. "0,-1") parsed by `parse` when given; needs `needed`.
void add_list_option(CLI::App& command, const std::string& name, const std::string& help,
                     CLI::Option* needed, std::function<void(const std::string&)> parse) {
  command.add_option_function<std::string>(name, std::move(parse), help)
      ->type_name("LIST")
      ->needs(needed);
}

// --dump-attention, --dump-types, --dump-layers, --dump-heads, --view.
void add_attention_options(CLI::App& command, TranslateArgs& args) {
  CLI::Option* dump =
      command
          .add_option("--dump-attention", args.dump_attention,
                      "write the attention weights to this JSON file (one entry per line)")
          ->type_name("FILE");
  add_list_option(command, "--dump-types",
                  "attention to dump: any of encoder,decoder,cross (default: all)", dump,
                  [&args](const std::string& list) {
                    args.dump_types = parse_list("--dump-types", list);
                    for (const auto& type : args.dump_types)
                      if (type != "encoder" && type != "decoder" && type != "cross")
                        throw CLI::ValidationError(
                            "--dump-types", "'" + type + "' is not encoder, decoder or cross");
                  });
  add_list_option(command, "--dump-layers",
                  "layers to dump, e.g. 0,-1 (negative counts from the end; default: all)", dump,
                  [&args](const std::string& list) {
                    args.dump_layers =
                        parse_numbers("--dump-layers", list, true,
                                      "a layer number (0 is the first, -1 the last)");
                  });
  add_list_option(
      command, "--dump-heads", "heads to dump, e.g. 0,3 (numbered from 0; default: all)", dump,
      [&args](const std::string& list) {
        args.dump_heads =
            parse_numbers("--dump-heads", list, false, "a head number (heads are numbered from 0)");
      });
  command
      .add_option("--view", args.view,
                  "also render the attention as one self-contained HTML page (as minimt view "
                  "does; it shows what --dump-* select when given)")
      ->type_name("FILE.html");
}

// --align, --align-layer, --align-heads, --align-rule.
void add_align_options(CLI::App& command, TranslateArgs& args) {
  CLI::Option* align = command.add_flag(
      "--align", args.align,
      "after each translation, a tab and its word alignment in Pharaoh format (source-target, "
      "e.g. 0-0 1-2 2-1), from cross-attention; jsonl: an \"alignment\" field");
  command
      .add_option("--align-layer", args.align_layer,
                  "decoder layer the alignment reads (negative counts from the end)")
      ->type_name("N")
      ->capture_default_str()
      ->needs(align);
  add_list_option(command, "--align-heads",
                  "heads whose cross-attention the alignment averages, e.g. 0,3 (default: all)",
                  align, [&args](const std::string& list) {
                    args.align_heads = parse_numbers("--align-heads", list, false,
                                                     "a head number (heads are numbered from 0)");
                  });
  command
      .add_option("--align-rule", args.align_rule,
                  "best-source: each target word to its best source word; best-target: each "
                  "source word to its best target word; intersection: links both agree on")
      ->check(CLI::IsMember({"best-source", "best-target", "intersection"}))
      ->capture_default_str()
      ->needs(align);
}

}  // namespace

Command add_translate(CLI::App& app) {
  auto args = std::make_shared<TranslateArgs>();
  CLI::App* command = app.add_subcommand(
      "translate", "translate sentences: arguments, or the lines of a file or stdin");
  CLI::Option* input = add_io_options(*command, *args);
  add_attention_options(*command, *args);
  add_align_options(*command, *args);
  command->add_option("text", args->texts, "sentences, one per argument; with none, read lines")
      ->excludes(input);
  return {command, [args] { return run_translate(*args); }};
}

}  // namespace minimt::cli
