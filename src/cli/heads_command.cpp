// minimt heads: every head of every attention type and layer, ranked by what masking it alone
// costs the reference translations (teacher forcing), with statistics of its pattern.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "minimt/app/head_analysis.h"
#include "minimt/app/head_page.h"
#include "minimt/app/head_report.h"
#include "minimt/app/line_reader.h"
#include "minimt/app/output_file.h"
#include "minimt/app/output_writer.h"
#include "minimt/app/progress.h"
#include "minimt/base/error.h"
#include "minimt/base/utf8.h"

namespace minimt::cli {
namespace {

struct HeadsArgs {
  std::string model;
  std::string compute_type;  // "": the model file's (see --compute-type)
  std::string input;         // -i: a file; "" or "-" for stdin
  std::string output;
  std::string format = "text";
  std::string view;  // --view: the grid of heads and example heatmaps as an HTML page
  bool translate = false;
  bool prune_order = false;
  int threads = 0;
  int batch_size = 32;
  bool quiet = false;
};

// source<TAB>reference lines, or sources alone (their greedy translations become the
// references). A bad line is reported with its number and left out.
std::vector<SentencePair> read_pairs(const HeadsArgs& args, const Translator& translator,
                                     ProgressBar& progress, int& failures) {
  LineReader reader(args.input);
  std::vector<SentencePair> pairs;
  std::vector<size_t> untranslated;
  std::string line;
  while (reader.next(line) == LineReader::Status::kLine) {
    const long long number = reader.lines_read();
    if (find_invalid_utf8(line) >= 0) {
      ++failures;
      progress.message("minimt: error: line " + std::to_string(number) + ": invalid UTF-8");
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) untranslated.push_back(pairs.size());
    pairs.push_back({line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1)});
  }
  std::vector<std::string> sources;
  for (size_t i : untranslated) sources.push_back(pairs[i].source);
  if (!sources.empty()) {
    std::vector<Translation> own = translator.translate(sources);
    for (size_t k = 0; k < untranslated.size(); ++k) pairs[untranslated[k]].reference = own[k].text;
  }
  return pairs;
}

// The sentences --view draws below the grid of heads.
constexpr int kViewExamples = 3;

// With --view: refuses outputs that are an input or each other, before any is created.
void check_view_paths(const HeadsArgs& args, const Model& model) {
  if (args.view == "-")
    throw UsageError("--view needs a file name: the table goes to standard output");
  PathGuard guard;
  guard.input("-i", args.input == "-" ? "" : args.input);
  for (const ModelFile& file : model.files()) guard.input("the model file", file.path);
  guard.output("-o", args.output);
  guard.output("--view", args.view);
  guard.check();
}

// --view: the page, and a line on stderr saying what it holds.
void write_view(OutputFile& file, const Translator& translator, const HeadAnalysis& analysis,
                const std::vector<SentencePair>& pairs, bool quiet) {
  std::ostringstream page;
  const ViewSummary summary =
      write_head_page(analysis, record_examples(translator, pairs, kViewExamples), page);
  file.write(page.str());
  file.commit();
  if (quiet) return;
  std::cerr << "minimt: wrote " << file.path() << ": " << analysis.heads.size() << " heads, "
            << summary.sentences << " example sentence" << (summary.sentences == 1 ? "" : "s")
            << " (" << summary.heatmaps << " heatmaps), " << human_size(page.str().size(), true)
            << "\n";
}

int run_heads(const HeadsArgs& args) {
  Translator translator(load_model(args.model, args.compute_type));
  const ModelConfig& c = translator.model().config();
  const int heads = (c.encoder_layers + 2 * c.decoder_layers) * c.num_heads;
  std::unique_ptr<OutputFile> view;  // created first: a path that cannot be written fails early
  if (!args.view.empty()) {
    check_view_paths(args, translator.model());
    view = std::make_unique<OutputFile>(args.view);
  }
  OutputWriter out(args.output);
  const bool bar = !args.quiet && isatty(2);
  const long long passes = 1 + heads + (args.prune_order ? heads + 1 : 0);
  ProgressBar progress(passes, bar, "passes");
  int failures = 0;
  std::vector<SentencePair> pairs = read_pairs(args, translator, progress, failures);
  if (pairs.empty()) throw InputError("minimt heads: no sentence to analyse in the input");
  HeadAnalysisOptions options;
  options.translate = args.translate;
  options.prune_order = args.prune_order;
  options.batch_size = args.batch_size;
  options.threads =
      args.threads > 0 ? args.threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  long long done = 0;
  options.progress = [&](const std::string&) { progress.update(done++); };
  HeadAnalysis analysis = analyse_heads(translator, pairs, options);
  progress.clear();
  out.write(args.format == "jsonl" ? head_table_jsonl(analysis)
            : args.format == "csv" ? head_table_csv(analysis)
                                   : head_table_text(analysis));
  out.commit();
  if (view) write_view(*view, translator, analysis, pairs, args.quiet);
  return failures > 0 ? 1 : 0;
}

}  // namespace

Command add_heads(CLI::App& app) {
  auto args = std::make_shared<HeadsArgs>();
  CLI::App* command = app.add_subcommand(
      "heads",
      "rank every attention head by how much masking it alone lowers the log-probability of "
      "reference translations (teacher forcing), with statistics of its pattern");
  add_model_option(*command, args->model);
  add_compute_type_option(*command, args->compute_type);
  command
      ->add_option("-i,--input", args->input,
                   "SOURCE<TAB>REFERENCE lines, or sources alone (their greedy translations are "
                   "the references); default, or -: stdin")
      ->type_name("FILE");
  command->add_option("-o,--output", args->output, "write to FILE (default, or -: stdout)")
      ->type_name("FILE");
  command->add_option("--format", args->format, "text: a table by importance; jsonl; csv")
      ->check(CLI::IsMember({"text", "jsonl", "csv"}))
      ->capture_default_str();
  command
      ->add_option("--view", args->view,
                   "also write one self-contained HTML page: a layers x heads grid per attention "
                   "type coloured by importance, each cell with its statistics, and the "
                   "attention heatmaps of the first 3 input pairs")
      ->type_name("FILE.html");
  command->add_flag("--translate", args->translate,
                    "also the change in exact match of the greedy translation (a decode per head)");
  command->add_flag("--prune-order", args->prune_order,
                    "remove heads one at a time, least important first, and report the "
                    "log-probability (and exact match) after each removal");
  command
      ->add_option("--threads", args->threads, "passes run in parallel (default 0: one per core)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  command->add_option("--batch-size", args->batch_size, "sentences per pass batch")
      ->type_name("N")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command->add_flag("-q,--quiet", args->quiet, "no progress bar");
  return {command, [args] { return run_heads(*args); }};
}

}  // namespace minimt::cli
