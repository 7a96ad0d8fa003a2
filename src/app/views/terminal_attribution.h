// One attribution method's map of a sentence (--attribute; docs/model-format.md,
// "Attributions") as a terminal heatmap (show --values METHOD): the source map [T][S] under
// --type cross, the target map [T][T] under --type decoder, one grid, no layers or heads.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

// Whether s is a blank line's translation, which holds the eos's matrices but is not attributed
// (docs/model-format.md, "Attributions"): drawn as a note, not refused.
bool blank_line(const DumpSentence& s);
// The line that stands for such a sentence's map.
std::string blank_line_note(const DumpSentence& s);

// The sentence's attributions of `method`; nullptr when the dump has none.
const DumpAttribution* find_attribution(const DumpSentence& s, const std::string& method);

// The map of a sentence that choice.values (a method) and choice.type name: the source map
// [rows][cols] under cross, the target map [rows][rows] under decoder (causal).
struct AttributionMap {
  const dump_schema::AttentionType* type;
  const DumpAttribution* attribution;
  const std::vector<float>* values;  // [rows][cols], row-major
  int rows, cols;
  bool causal;
};
// Throws Error for the encoder type, a sentence without that method or a map of another shape.
AttributionMap attribution_map(const DumpSentence& s, const HeatmapChoice& choice);

// "8 steps, gauss_legendre rule, largest |completeness gap| 0.001234" of integrated gradients.
std::string integration_text(const DumpAttribution& a);

// The axes line of a map: rows are outputs; columns the source or, when causal, the decoder
// input.
std::string attribution_axes(bool causal);

// The map choice.values names, of choice.type (cross: the source map; decoder: the target map,
// j > t drawn as the causal mask): saliency on the sequential scale up to the map's largest,
// the signed methods on the diverging scale up to its largest magnitude. The title names the
// method and, for integrated gradients, the steps, the rule and the largest |completeness gap|.
// Throws Error for the encoder type or a sentence without that method.
std::string draw_attribution(const DumpSentence& s, const HeatmapChoice& choice,
                             const TerminalStyle& style);

}  // namespace minimt::view
