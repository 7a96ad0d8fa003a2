// The run shared by minimt translate and minimt score (line_run.h): lines in, batches on worker
// threads, one record per line out in input order, with dumps, the page and alignments.
#include "cli/line_run.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <random>
#include <thread>

#include "cli/attention_files.h"
#include "cli/commands.h"
#include "cli/path_guard.h"
#include "minimt/app/alignment.h"
#include "minimt/app/batch_runner.h"
#include "minimt/app/head_mask_spec.h"
#include "minimt/app/line_reader.h"
#include "minimt/app/output_record.h"
#include "minimt/app/output_writer.h"
#include "minimt/app/progress.h"
#include "minimt/base/error.h"

namespace minimt::cli {
namespace {

// The alternatives a dump and the page keep at each output position.
constexpr int kAlternativesDrawn = 5;

// Warnings of one kind named line by line; the rest are counted at the end.
constexpr long long kWarningsPerKind = 10;

// The most lines --threads times --batch-size may ask for (see check_batch_limit).
constexpr int kMaxLinesPerRound = 65536;

int available_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

BatchOptions batch_options(const LineRunArgs& args, uint64_t seed) {
  BatchOptions options;
  options.threads = args.threads > 0 ? args.threads : available_cores();
  options.batch_size = std::max(args.batch_size, 1);
  TranslateOptions& translate = options.translate;
  translate.max_length = args.max_length;
  translate.record_attention = !args.dump_attention.empty() || !args.view.empty() || args.align;
  translate.beam_size = args.beam_size;
  translate.n_best = args.n_best;
  translate.keep_n_best = args.n_best_given;
  translate.record_n_best = args.align && args.n_best_given;  // each hypothesis its alignment
  translate.length_penalty = args.length_penalty;
  translate.sampling = {args.sample, args.temperature, args.top_k, args.top_p};
  translate.seed = seed;
  translate.prefix = args.prefix;
  translate.columns = args.scoring         ? LineColumns::kSourceAndTarget
                      : args.prefix_column ? LineColumns::kSourceAndPrefix
                                           : LineColumns::kSource;
  // The page shows the most likely tokens at each output position when the mouse is over it.
  const bool drawn = !args.dump_attention.empty() || !args.view.empty();
  translate.alternatives = std::max(args.alternatives, drawn ? kAlternativesDrawn : 0);
  return options;
}

// --seed, or a fresh one that the user is told, so that a run they liked can be repeated.
uint64_t sampling_seed(const LineRunArgs& args) {
  if (args.seed) return *args.seed;
  if (!args.sample) return 0;
  std::random_device device;
  const uint64_t seed = (static_cast<uint64_t>(device()) << 32 | device()) >> 1;
  if (!args.quiet)
    fprintf(stderr, "minimt: sampling with --seed %llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// The --align-* options, checked against the model when --align is given.
AlignmentOptions alignment_options(const LineRunArgs& args, const Model& model) {
  AlignmentOptions alignment;
  alignment.layer = args.align_layer;
  alignment.heads = args.align_heads;
  if (!args.align_rule.empty()) alignment.rule = parse_align_rule(args.align_rule);
  if (args.align)
    check_alignment_options(alignment, model.config().decoder_layers, model.config().num_heads);
  return alignment;
}

DumpSelection dump_selection(const LineRunArgs& args, const Model& model) {
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
  selection.rollout = args.rollout;
  // Written to the dump: its weights are those of the masked model.
  if (args.mask_heads_given)
    selection.masked_heads = parse_head_mask(args.mask_heads, model.config()).to_string();
  return selection;
}

std::unique_ptr<DumpFile> open_dump(const LineRunArgs& args, const Model& model) {
  if (args.dump_attention.empty()) return nullptr;
  return std::make_unique<DumpFile>(args.dump_attention, model, dump_selection(args, model));
}

std::unique_ptr<ViewFile> open_view(const LineRunArgs& args, const Model& model) {
  if (args.view == "-")
    throw IoError("--view needs a file name: the translations go to standard output");
  if (args.view.empty()) return nullptr;
  return std::make_unique<ViewFile>(args.view, model, dump_selection(args, model), args.quiet);
}

// Refuses outputs that are an input (-i, standard input redirected from a file, the model's
// files) or each other, before any is created.
void check_paths(const LineRunArgs& args, const Model& model, const LineReader* reader) {
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
  TranslateRun(const LineRunArgs& args, const Model& model, const LineReader* reader)
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
  OutputRecord make_record(const Translation& translation, long long line, double time_ms) const;
  std::string format(const OutputRecord& record) const;
  void report(const Translation& translation, long long line);

  const LineRunArgs& args_;
  const Model& model_;
  const AlignmentOptions alignment_;
  std::unique_ptr<DumpFile> dump_;
  std::unique_ptr<ViewFile> view_;
  OutputWriter out_;
  const bool show_progress_;
  ProgressBar progress_;
  const bool output_under_bar_;
  long long failures_ = 0, written_ = 0;
  long long unknown_lines_ = 0, cut_short_lines_ = 0;  // warned about, or not past the first few
};

OutputRecord TranslateRun::make_record(const Translation& t, long long line, double time_ms) const {
  OutputRecord record = make_output_record(model_, t, line, time_ms, args_.scoring);
  record.has_n_best = args_.n_best_given;
  // A blank line's one hypothesis is the empty translation, in the list as everywhere else.
  if (record.has_n_best && record.error.empty() && record.n_best.empty())
    record.n_best.push_back(record);
  record.alternatives.resize(args_.alternatives > 0 ? record.alternatives.size() : 0);
  for (auto& position : record.alternatives)
    if (position.size() > static_cast<size_t>(args_.alternatives))
      position.resize(args_.alternatives);
  const bool penalized = args_.length_penalty != 0.0f && !args_.scoring;
  if (penalized) record.ranking_score = t.ranking_score;
  for (size_t r = 0; r < record.n_best.size(); ++r) {
    if (penalized) record.n_best[r].ranking_score = t.n_best[r].ranking_score;
    if (args_.align)
      record.n_best[r].alignment =
          to_pharaoh(align_translation(t.n_best[r], model_, alignment_).links);
  }
  if (args_.align) record.alignment = to_pharaoh(align_translation(t, model_, alignment_).links);
  return record;
}

std::string TranslateRun::format(const OutputRecord& record) const {
  if (args_.format == "jsonl") return args_.scoring ? score_jsonl_line(record) : jsonl_line(record);
  if (args_.scoring) return score_text_line(record);
  return args_.n_best_given ? n_best_text_lines(record) : text_line(record);
}

void TranslateRun::render(LineBatch& batch) const {
  // time_ms: the batch's wall time shared equally among its lines.
  const double per_line = batch.milliseconds / static_cast<double>(batch.lines.size());
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    Translation& t = batch.translations[i];
    batch.records.push_back(format(make_record(t, batch.first_line + i, per_line)));
    if (!dump_ && !view_) t.attention.reset();  // only the alignment needed it
    for (Translation& entry : t.n_best) entry.attention.reset();
  }
}

// The warnings for a cut line, unknown words and an output cut short, and the error of a failed
// line, on stderr.
void TranslateRun::report(const Translation& t, long long line) {
  const std::string where = "minimt: warning: line " + std::to_string(line);
  if (t.truncated && !args_.quiet)
    progress_.message(where + " is longer than the model's max_positions (" +
                      std::to_string(model_.config().max_positions) + " tokens) and was cut");
  if (!t.unknown.empty() && !args_.quiet && unknown_lines_++ < kWarningsPerKind) {
    std::string words;
    const size_t shown = std::min<size_t>(t.unknown.size(), 8);
    for (size_t i = 0; i < shown; ++i) words += (i ? ", '" : "'") + t.unknown[i] + "'";
    if (shown < t.unknown.size())
      words += " and " + std::to_string(t.unknown.size() - shown) + " more";
    progress_.message(where + ": the model does not know " + words +
                      " (read as <unk>); see minimt vocab");
  }
  if (t.ok() && !t.finished && !args_.scoring && !args_.quiet &&
      cut_short_lines_++ < kWarningsPerKind)
    progress_.message(where + ": the translation stopped at " +
                      std::to_string(t.output_ids.size()) + " tokens (--max-length " +
                      std::to_string(args_.max_length) + ", max_positions " +
                      std::to_string(model_.config().max_positions) + ") before its end (eos)");
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
  if (unknown_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(unknown_lines_ - kWarningsPerKind) +
                      " more lines have words the model does not know (\"unknown\" in jsonl)");
  if (cut_short_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(cut_short_lines_ - kWarningsPerKind) +
                      " more translations stopped before their end (\"cut_short\" in jsonl)");
  progress_.clear();
  if (dump_) dump_->finish();
  if (view_) view_->finish();
  // Every output is complete: only now do they replace the files they name.
  out_.commit();
  if (dump_) dump_->commit();
  if (view_) view_->commit();
  return failures_ > 0 ? 1 : 0;
}

// --mask-heads, checked against the model: a wrong SPEC is a usage error.
std::shared_ptr<const HeadMask> head_mask(const LineRunArgs& args, const Model& model) {
  if (!args.mask_heads_given) return nullptr;
  try {
    return std::make_shared<const HeadMask>(parse_head_mask(args.mask_heads, model.config()));
  } catch (const Error& e) {
    throw UsageError(std::string("--mask-heads: ") + e.what());
  }
}

}  // namespace

int run_lines(const LineRunArgs& args) {
  // A reader that goes away (`minimt translate ... | head -3`) must end the run quietly:
  // without SIGPIPE, writes to the closed pipe fail with EPIPE and OutputWriter reports it.
  ignore_sigpipe();
  if (args.rollout && args.dump_attention.empty() && args.view.empty())
    throw UsageError("--rollout adds to --dump-attention or --view: give one of them");

  std::unique_ptr<LineReader> reader;  // opened first: a missing input fails before the model
  if (args.texts.empty()) reader = std::make_unique<LineReader>(args.input);
  BatchOptions options = batch_options(args, sampling_seed(args));
  check_batch_limit(options);
  Translator translator(load_model(args.model, args.compute_type));
  options.translate.head_mask = head_mask(args, translator.model());
  check_paths(args, translator.model(), reader.get());
  TranslateRun run(args, translator.model(), reader.get());
  if (args.align && args.dump_attention.empty() && args.view.empty()) {
    // The alignment alone reads the attention: record only the cross attention it averages.
    const ModelConfig& c = translator.model().config();
    options.translate.record_cross_only = check_alignment_options(
        alignment_options(args, translator.model()), c.decoder_layers, c.num_heads);
  }

  BatchCallbacks callbacks;
  callbacks.render = [&](LineBatch& batch) { run.render(batch); };
  callbacks.write = [&](LineBatch& batch) { return run.write(batch); };
  if (reader)
    translate_lines(translator, *reader, options, callbacks);
  else
    translate_lines(translator, args.texts, options, callbacks);
  return run.finish();
}

}  // namespace minimt::cli
