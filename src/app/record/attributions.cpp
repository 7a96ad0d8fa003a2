// Attributions in the dump's form and as JSON (attributions.h).
#include "minimt/app/record/attributions.h"

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

std::vector<DumpAttribution> dump_attributions(const AttributionResult& result,
                                               const AttributionOptions& options) {
  std::vector<DumpAttribution> list;
  for (const auto& [name, method] : kAttributionMethodNames) {
    const AttributionMap& map = result[method];
    if (!map.present) continue;
    DumpAttribution a;
    a.method = name;
    a.source = map.source;
    a.target = map.target;
    if (method == AttributionMethod::kIntegratedGradients) {
      a.completeness_gap = map.completeness_gap;
      a.steps = options.ig_steps;
      a.rule = enum_name(kIgRuleNames, options.ig_rule);
    }
    list.push_back(std::move(a));
  }
  return list;
}

void append_attributions_json(std::string& out, const std::vector<DumpAttribution>& attributions,
                              int S, int T) {
  out += '{';
  for (size_t k = 0; k < attributions.size(); ++k) {
    const DumpAttribution& a = attributions[k];
    out += k ? ",\"" : "\"";
    out += a.method;
    out += "\":{\"source\":";
    append_matrix(out, a.source, T, S);
    out += ",\"target\":";
    append_matrix(out, a.target, T, T);
    if (!a.rule.empty()) {
      out += ",\"completeness_gap\":";
      append_row(out, a.completeness_gap.data(), T);
      out += ",\"steps\":" + std::to_string(a.steps) + ",\"rule\":\"" + a.rule + '"';
    }
    out += '}';
  }
  out += '}';
}

}  // namespace minimt
