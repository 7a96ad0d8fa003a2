// minimt heads: every head of every attention type and layer, ranked by what ablating it alone
// costs the reference translations (teacher forcing), with statistics of its pattern.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "cli/request_flags.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/io/output_file.h"
#include "minimt/app/io/output_writer.h"
#include "minimt/app/io/progress.h"
#include "minimt/app/run/heads_run.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {
namespace {

struct HeadsArgs {
  HeadsRequest request;
  std::string model;
  std::string compute_type;  // "": the model file's (see --compute-type)
  std::string input;         // -i: a file; "" or "-" for stdin
  std::string output;
  std::string format = "text";  // a name of kHeadsFormatNames
  std::string view;             // --view: the grid of heads and example heatmaps as an HTML page
  std::string attribution;      // --attribution: a name of kAttributionMethodNames, or ""
  Request integration;          // --ig-steps and --ig-rule, as translate's rows set them
  bool quiet = false;
};

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
void write_view(OutputFile& file, std::shared_ptr<const Model> model, const HeadsResult& result,
                bool quiet) {
  std::ostringstream page;
  const ViewSummary summary = write_heads_page(std::move(model), result, page);
  file.write(page.str());
  file.commit();
  if (quiet) return;
  std::cerr << "minimt: wrote " << visible_text(file.path()) << ": " << result.analysis.heads.size()
            << " heads, " << summary.sentences << " example sentence"
            << (summary.sentences == 1 ? "" : "s") << " (" << summary.heatmaps << " heatmaps), "
            << human_size(page.str().size(), true) << "\n";
}

int run_heads(HeadsArgs& args) {
  enum_value(kHeadsFormatNames, args.format, args.request.format);  // --format checked the name
  AttributionMethod method{};  // --attribution checked the name too
  if (enum_value(kAttributionMethodNames, args.attribution, method))
    args.request.attribution = method;
  const RecordSettings& integration = args.integration.record;
  const RecordSettings defaults = Request().record;
  if (!args.attribution.empty() && method != AttributionMethod::kIntegratedGradients &&
      (integration.ig_steps != defaults.ig_steps || integration.ig_rule != defaults.ig_rule))
    throw UsageError("--ig-steps and --ig-rule are integrated gradients' (--attribution " +
                     args.attribution + " has no steps)");
  args.request.ig_steps = integration.ig_steps;
  if (!integration.ig_rule.empty())  // --ig-rule checked the name
    enum_value(kIgRuleNames, integration.ig_rule, args.request.ig_rule);
  std::shared_ptr<const Model> model = load_model(args.model, args.compute_type);
  std::unique_ptr<OutputFile> view;  // created first: a path that cannot be written fails early
  if (!args.view.empty()) {
    check_view_paths(args, *model);
    view = std::make_unique<OutputFile>(args.view);
  }
  OutputWriter out(args.output);
  const bool bar = !args.quiet && isatty(2);
  ProgressBar progress(heads_passes(args.request, model->config()), bar, "passes");
  LineReader reader(args.input);
  long long done = 0;
  HeadsCallbacks callbacks;
  callbacks.bad_line = [&](long long line, const std::string& error) {
    progress.message("minimt: error: line " + std::to_string(line) + ": " + error);
  };
  callbacks.warning = [&](long long line, const std::string& text) {
    if (!args.quiet)
      progress.message("minimt: warning: line " + std::to_string(line) + ": " + text);
  };
  callbacks.pass = [&] { progress.update(done++); };
  const HeadsResult result = run_heads(model, args.request, reader, callbacks);
  progress.clear();
  out.write(result.table);
  out.commit();
  if (view) write_view(*view, model, result, args.quiet);
  return result.bad_lines > 0 ? 1 : 0;
}

void add_heads_options(CLI::App& command, HeadsArgs& args) {
  command.description(
      "rank every attention head by how much ablating it alone lowers the log-probability of "
      "reference translations (teacher forcing), with statistics of its pattern");
  add_model_option(command, args.model);
  add_compute_type_option(command, args.compute_type);
  command
      .add_option("-i,--input", args.input,
                  "SOURCE<TAB>REFERENCE lines, or sources alone (their greedy translations are "
                  "the references); default, or -: stdin")
      ->check(non_empty_path())
      ->type_name("FILE");
  command.add_option("-o,--output", args.output, "write to FILE (default, or -: stdout)")
      ->check(non_empty_path())
      ->type_name("FILE");
  command.add_option("--format", args.format, "text: a table by importance; jsonl; csv")
      ->check(CLI::IsMember({"text", "jsonl", "csv"}))
      ->capture_default_str();
  command
      .add_option("--view", args.view,
                  "also write one self-contained HTML page: a layers x heads grid per attention "
                  "type coloured by importance, each cell with its statistics, and the "
                  "attention heatmaps of the first 3 input pairs")
      ->check(non_empty_path())
      ->type_name("FILE.html");
  command.add_flag("--translate", args.request.translate,
                   "also the change in exact match of the greedy translation, and the sentences "
                   "whose translation each ablated head changes (a decode per head)");
  command.add_flag("--prune-order", args.request.prune_order,
                   "remove heads one at a time, least important first, and report the "
                   "log-probability (and exact match) after each removal");
  std::vector<std::string> methods;
  for (const auto& [name, method] : kAttributionMethodNames) methods.push_back(name);
  command
      .add_option("--attribution", args.attribution,
                  "add attr_agree: how often each cross head weighs most the source token that "
                  "METHOD's attribution finds most important")
      ->check(CLI::IsMember(methods))
      ->type_name("METHOD");
  // --ig-steps and --ig-rule: translate's and score's flags, from the same rows of the table.
  for (const RequestOption& row : request_options())
    if (row.name == "ig_steps" || row.name == "ig_rule")
      add_option_flag(command, row, field_name(row.name, FieldSpelling::kOption),
                      [&row, &args](const OptionValue& value) { row.set(args.integration, value); })
          ->needs("--attribution");
  add_ranged_option(command, "--threads", args.request.threads,
                    "passes run in parallel (default 0: one per core)", "N", 0, 1024);
  add_ranged_option(command, "--batch-size", args.request.batch_size, "sentences per pass batch",
                    "N", 1, 4096)
      ->capture_default_str();
  command.add_flag("-q,--quiet", args.quiet, "no progress bar, no warnings");
  command.footer(std::string("The text table's ") + heads_column_legend());
}

}  // namespace

Command add_heads(CLI::App& app) {
  return add_command<HeadsArgs>(app, "heads", add_heads_options, run_heads);
}

}  // namespace minimt::cli
