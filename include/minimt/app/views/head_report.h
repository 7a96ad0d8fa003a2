// minimt heads' output: an aligned text table sorted by importance, JSON Lines or CSV.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minimt/app/analysis/head_analysis.h"

namespace minimt {

// The numbers of one head, named and in the order of every format (the page's data too):
// delta_log_prob, delta_exact_match, entropy, max_weight, same, previous, first, eos,
// alignment_agreement, and with `attribution` (heads --attribution) attribution_agreement;
// nullopt where the analysis has none.
std::vector<std::pair<const char*, std::optional<double>>> head_numbers(const HeadResult& h,
                                                                        bool attribution = false);

// Text: the table, its legend (heads_column_legend), with --translate the sentences
// whose greedy translation changes per head, with --prune-order the pruning curve.
std::string head_table_text(const HeadAnalysis& analysis);
// What each column of the table is, precisely (after the text table, and in minimt heads --help).
const char* heads_column_legend();
// JSON Lines: one record per head (with --translate, "changed": [{line, before, after}]), with
// --attribution one per mean of cross heads ({"average": "cross", "layer": L (none for every
// layer's), "attribution": METHOD, "attribution_agreement": F}), then one per pruning point.
std::string head_table_jsonl(const HeadAnalysis& analysis);
std::string head_table_csv(const HeadAnalysis& analysis);

}  // namespace minimt
