// The attributions key of the dump (attribution_keys.h).
#include "app/record/attribution_keys.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "minimt/app/record/attributions.h"
#include "minimt/base/error.h"

namespace minimt::dump_keys {
namespace {

using nlohmann::json;

// A list of `count` numbers at `at`; `hidden(j)`: null there, and only there (NaN in memory).
template <typename Hidden>
void read_row(const json& row, size_t count, Hidden hidden, const std::string& at,
              std::vector<float>& values) {
  if (!row.is_array() || row.size() != count)
    throw Error(at + " should be a list of " + std::to_string(count) + " numbers");
  for (size_t j = 0; j < count; ++j) {
    const std::string cell = at + "[" + std::to_string(j) + "]";
    const json& x = row[j];
    if (hidden(j)) {
      if (!x.is_null())
        throw Error(cell + " should be null: output token " + at.substr(at.rfind('[')) +
                    " cannot depend on a later decoder input");
      values.push_back(std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    // Finite as a float too: 1e39 is a double but no float32 (the attributions are float32).
    if (!x.is_number() || !std::isfinite(static_cast<float>(x.get<double>())))
      throw Error(cell + " is not a finite float32 number");
    values.push_back(static_cast<float>(x.get<double>()));
  }
}

// [rows][cols] at `at`, null where hidden(i, j).
template <typename Hidden>
void read_matrix(const json* value, size_t rows, size_t cols, Hidden hidden, const std::string& at,
                 std::vector<float>& values) {
  if (!value || !value->is_array() || value->size() != rows)
    throw Error(at + " should be a list of " + std::to_string(rows) +
                " rows, one per output token");
  for (size_t i = 0; i < rows; ++i)
    read_row((*value)[i], cols, [&](size_t j) { return hidden(i, j); },
             at + "[" + std::to_string(i) + "]", values);
}

const json* member(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

void record_attributions(const Recording& r, const Slot&, DumpSentence& s) {
  if (r.translation.attributions)
    s.attributions = dump_attributions(*r.translation.attributions, r.translation.attribution);
}

void write_attributions(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  if (s.attributions.empty()) return;
  open_key(out, slot, true);
  std::string text;
  append_attributions_json(text, s.attributions, static_cast<int>(s.source_tokens.size()),
                           static_cast<int>(s.output_tokens.size()));
  out << text;
}

void read_attributions(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value || value->is_null()) return;
  const std::string at = r.where + ": " + slot.key;
  if (!value->is_object()) throw Error(at + " is not an object of methods");
  const size_t S = s.source_tokens.size(), T = s.output_tokens.size();
  for (const auto& [name, method] : kAttributionMethodNames) {
    const json* entry = member(*value, name);
    if (!entry) continue;
    const std::string where = at + "." + name;
    if (!entry->is_object()) throw Error(where + " is not an object");
    DumpAttribution a;
    a.method = name;
    read_matrix(
        member(*entry, "source"), T, S, [](size_t, size_t) { return false; }, where + ".source",
        a.source);
    read_matrix(
        member(*entry, "target"), T, T, [](size_t i, size_t j) { return j > i; }, where + ".target",
        a.target);
    if (method == AttributionMethod::kIntegratedGradients) {
      const json* gap = member(*entry, "completeness_gap");
      if (!gap) throw Error(where + " has no completeness_gap");
      read_row(
          *gap, T, [](size_t) { return false; }, where + ".completeness_gap", a.completeness_gap);
      const json* steps = member(*entry, "steps");
      const json* rule = member(*entry, "rule");
      if (!steps || !steps->is_number_integer() || steps->get<long long>() < 1 ||
          steps->get<long long>() > (1 << 20))
        throw Error(where + ".steps should be a whole number of steps, at least 1");
      IgRule known = IgRule::kGaussLegendre;
      if (!rule || !rule->is_string() || !enum_value(kIgRuleNames, rule->get<std::string>(), known))
        throw Error(where + ".rule should be one of " + enum_name_list(kIgRuleNames));
      a.steps = static_cast<int>(steps->get<long long>());
      a.rule = rule->get<std::string>();
    }
    s.attributions.push_back(std::move(a));
  }
  for (const auto& item : value->items())
    if (std::none_of(std::begin(kAttributionMethodNames), std::end(kAttributionMethodNames),
                     [&](const auto& n) { return item.key() == n.first; }))
      throw Error(at + " has '" + item.key() + "', not one of " +
                  enum_name_list(kAttributionMethodNames));
}

}  // namespace minimt::dump_keys
