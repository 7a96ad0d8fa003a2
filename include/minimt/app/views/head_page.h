// minimt heads --view: one self-contained page (the attention page, attention_view.h, with the
// analysis in its data): a layers x heads grid per attention type coloured by importance, each
// cell with its statistics, above the heatmaps of a few example sentences from the unmasked
// model. The page's script draws the grid (src/app/views/page/heads_grid.js).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/analysis/head_analysis.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/translate/translator.h"
#include "minimt/app/views/attention_view.h"

namespace minimt {

// The first `count` pairs scored by the unmasked model (teacher forcing on the reference, as
// the analysis reads them), with their attention, as a dump of every type, layer and head.
AttentionDump record_examples(const Translator& translator, const std::vector<SentencePair>& pairs,
                              int count);

// The analysis as the page's data "heads": the counts, log_prob_per_token, exact_match (when
// measured), "ranked": the heads most important first, each {type, layer, head} with the
// numbers head_numbers names (head_report.h), and "prune": the pruning curve. Numbers that are
// not finite are the strings "inf", "-inf", "nan" or "-nan", as printf writes them.
nlohmann::json head_page_data(const HeadAnalysis& analysis);

// The page: the analysis, then the examples' heatmaps.
ViewSummary write_head_page(const HeadAnalysis& analysis, const AttentionDump& examples,
                            std::ostream& out);

}  // namespace minimt
