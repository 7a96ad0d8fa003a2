// minimt heads as a request and a run, like translate's (request.h, request_run.h): a front end
// fills HeadsRequest, gives it the lines (SOURCE<TAB>REFERENCE, or sources alone) and gets the
// table in the format asked for, then, if it wants one, the page.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/analysis/head_analysis.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/app/views/head_report.h"  // heads_column_legend
#include "minimt/base/enum_names.h"
#include "minimt/model/model.h"

namespace minimt {

enum class HeadsFormat { kText, kJsonl, kCsv };  // head_report.h's tables
inline constexpr EnumName<HeadsFormat> kHeadsFormatNames[] = {
    {"text", HeadsFormat::kText}, {"jsonl", HeadsFormat::kJsonl}, {"csv", HeadsFormat::kCsv}};

struct HeadsRequest {
  bool translate = false;    // also the change in exact match of the greedy translation
  bool prune_order = false;  // the pruning curve
  int threads = 0;           // passes in parallel; 0: one per online core
  int batch_size = 32;       // sentences per pass batch
  HeadsFormat format = HeadsFormat::kText;
  // Each cross head's agreement with this attribution (attr_agree), on the intact run; its
  // steps and rule for integrated gradients (--ig-steps, --ig-rule).
  std::optional<AttributionMethod> attribution;
  int ig_steps = 32;
  IgRule ig_rule = IgRule::kGaussLegendre;
};

// The passes run_heads makes over the pairs with this model (for a progress bar).
long long heads_passes(const HeadsRequest& request, const ModelConfig& config);

struct HeadsCallbacks {
  std::function<void(long long line, const std::string& error)> bad_line;  // left out
  std::function<void(long long line, const std::string& text)> warning;    // kept
  std::function<void()> pass;                                              // before each pass
};

struct HeadsResult {
  std::string table;  // in the request's format
  long long bad_lines = 0;
  std::vector<SentencePair> pairs;  // as analysed: a source alone has its greedy translation
  HeadAnalysis analysis;
};

// Reads every line (a bad one: longer than 64 KiB, not UTF-8, a reference longer than the
// model reads, is reported with its number and left out; a source cut to max_positions is
// reported and kept), then ranks the heads. Throws InputError when no line is left to analyse.
HeadsResult run_heads(std::shared_ptr<const Model> model, const HeadsRequest& request,
                      LineReader& lines, const HeadsCallbacks& callbacks);

// The page of a result: the grid of heads above the heatmaps of the first few pairs.
ViewSummary write_heads_page(std::shared_ptr<const Model> model, const HeadsResult& result,
                             std::ostream& out);

}  // namespace minimt
