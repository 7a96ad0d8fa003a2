// A sentence's attributions (Translation::attributions; engine/attribution.h) as the dump holds
// them (DumpAttribution, dump.h), and as JSON: one object that JSON Lines records and the dump
// both hold (docs/model-format.md, "Attributions"):
//   {METHOD: {"source": [T][S], "target": [T][T] (null for j > t)}, ...}, integrated_gradients
// also with "completeness_gap": [T], "steps": m and "rule": its rule's name; the methods in
// kAttributionMethodNames' order, floats as the shortest text that reads back as the same float.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/record/dump.h"
#include "minimt/app/translate/translator.h"

namespace minimt {

// The methods the result holds, in the engine's order.
std::vector<DumpAttribution> dump_attributions(const AttributionResult& result,
                                               const AttributionOptions& options);

// `attributions` of a sentence of S source and T output tokens as the JSON object above.
void append_attributions_json(std::string& out, const std::vector<DumpAttribution>& attributions,
                              int source_length, int target_length);

}  // namespace minimt
