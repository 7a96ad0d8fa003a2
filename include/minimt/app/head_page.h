// minimt heads --view: one self-contained page (the attention page, attention_view.h, with a
// preface): a layers x heads grid per attention type coloured by importance, each cell with
// its statistics, above the heatmaps of a few example sentences from the unmasked model.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/attention_view.h"
#include "minimt/app/dump_reader.h"
#include "minimt/app/head_analysis.h"
#include "minimt/app/translator.h"

namespace minimt {

// The first `count` pairs scored by the unmasked model (teacher forcing on the reference, as
// the analysis reads them), with their attention, as a dump of every type, layer and head.
AttentionDump record_examples(const Translator& translator, const std::vector<SentencePair>& pairs,
                              int count);

// The cell colour of an importance: `delta` (the change in log-probability per token) over
// `scale` (the largest |delta| of the run), red below 0 (masking costs), blue above, white at 0.
struct Rgb {
  int r = 255, g = 255, b = 255;
};
Rgb importance_colour(double delta, double scale);

// The grids, one per attention type, and the pruning curve when there is one (HTML).
std::string head_grid_html(const HeadAnalysis& analysis, int examples);

// The page: head_grid_html, then the examples' heatmaps.
ViewSummary write_head_page(const HeadAnalysis& analysis, const AttentionDump& examples,
                            std::ostream& out);

}  // namespace minimt
