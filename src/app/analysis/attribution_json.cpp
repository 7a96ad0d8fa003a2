// Attributions as JSON (attribution_json.h).
#include "minimt/app/analysis/attribution_json.h"

#include "minimt/base/json_writer.h"

namespace minimt {
namespace {

// values[0, n) as a list (NaN as null).
void append_row(std::string& out, const float* values, int n) {
  out += '[';
  for (int i = 0; i < n; ++i) {
    if (i) out += ',';
    append_json_float(out, values[i]);
  }
  out += ']';
}

// values[rows][cols] as a list of lists.
void append_matrix(std::string& out, const std::vector<float>& values, int rows, int cols) {
  out += '[';
  for (int r = 0; r < rows; ++r) {
    if (r) out += ',';
    append_row(out, values.data() + static_cast<size_t>(r) * cols, cols);
  }
  out += ']';
}

}  // namespace

void append_attributions_json(std::string& out, const AttributionResult& result,
                              const AttributionOptions& options) {
  const int S = result.source_length, T = result.target_length;
  out += '{';
  bool first = true;
  for (const auto& [name, method] : kAttributionMethodNames) {
    const AttributionMap& map = result[method];
    if (!map.present) continue;
    out += first ? "\"" : ",\"";
    first = false;
    out += name;
    out += "\":{\"source\":";
    append_matrix(out, map.source, T, S);
    out += ",\"target\":";
    append_matrix(out, map.target, T, T);
    if (method == AttributionMethod::kIntegratedGradients) {
      out += ",\"completeness_gap\":";
      append_row(out, map.completeness_gap.data(), T);
      out += ",\"steps\":" + std::to_string(options.ig_steps) + ",\"rule\":\"";
      out += enum_name(kIgRuleNames, options.ig_rule);
      out += '"';
    }
    out += '}';
  }
  out += '}';
}

}  // namespace minimt
