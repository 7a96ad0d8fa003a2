// A sentence's attributions (Translation::attributions) as JSON, one object that JSON Lines
// records and the dump both hold (docs/model-format.md, "Attributions"):
//   {METHOD: {"source": [T][S], "target": [T][T] (null for j > t)}, ...}, integrated_gradients
// also with "completeness_gap": [T], "steps": m and "rule": its rule's name; the methods in
// kAttributionMethodNames' order, floats as the shortest text that reads back as the same float.
#pragma once

#include <string>

#include "minimt/app/translate/translator.h"

namespace minimt {

void append_attributions_json(std::string& out, const AttributionResult& result,
                              const AttributionOptions& options);

}  // namespace minimt
