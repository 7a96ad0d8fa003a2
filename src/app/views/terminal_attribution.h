// One attribution method's map of a sentence (--attribute; docs/model-format.md,
// "Attributions") as a terminal heatmap (show --values METHOD): the source map [T][S] under
// --type cross, the target map [T][T] under --type decoder, one grid, no layers or heads.
#pragma once

#include <string>

#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

// The sentence's attributions of `method`; nullptr when the dump has none.
const DumpAttribution* find_attribution(const DumpSentence& s, const std::string& method);

// The map choice.values names, of choice.type (cross: the source map; decoder: the target map,
// j > t drawn as the causal mask): saliency on the sequential scale up to the map's largest,
// the signed methods on the diverging scale up to its largest magnitude. The title names the
// method and, for integrated gradients, the steps, the rule and the largest |completeness gap|.
// Throws Error for the encoder type or a sentence without that method.
std::string draw_attribution(const DumpSentence& s, const HeatmapChoice& choice,
                             const TerminalStyle& style);

}  // namespace minimt::view
