// The page of `minimt view A B`: the attention page (src/app/views/page/) with, in place of each
// type's weights, B - A per cell and each run's weights (for reading a cell), and the table of
// each head's largest change (largest_changes, as minimt show A B prints it). What else both
// dumps hold is compared the same way: the scores and norms (the values menu, the panel of a
// pinned row), the logit lens and the output probabilities. The page's script draws the
// differences on the diverging scale (view/difference.js).
#include <algorithm>
#include <cmath>

#include "app/views/page_data.h"
#include "app/views/view_text.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

using nlohmann::json;

// One type's difference as data.js reads it: "f" B - A, "a" and "b" each run's weights (single
// floats, a causal type's lower triangle only), the heads masked in each run; an extra's alike.
json packed_difference(const MatricesDifference& d, bool lower) {
  return {{"layers", d.change.layer_labels},
          {"heads", d.change.heads},
          {"rows", d.change.rows},
          {"cols", d.change.cols},
          {"lower", lower},
          {"difference", true},
          {"f", page_data::encode_floats(page_data::kept_values(d.change, lower))},
          {"a", page_data::encode_floats(page_data::kept_values(d.a, lower))},
          {"b", page_data::encode_floats(page_data::kept_values(d.b, lower))},
          {"masked_a", page_data::masked_heads(d.a)},
          {"masked_b", page_data::masked_heads(d.b)}};
}

// The extras compared: what a head's weights come from (its scores) and what it adds (its
// norms). The vectors (queries, keys, values) are left out: their B - A has no reading of its own.
bool compared_extra(const std::string& key) {
  for (const dump_schema::AttentionType& type : dump_schema::kAttentionTypes)
    for (const char* suffix : {dump_schema::kScoresSuffix, dump_schema::kWeightedNormsSuffix,
                               dump_schema::kHeadNormsSuffix})
      if (key == dump_schema::extra_key(type, suffix)) return true;
  return false;
}

// The extras both runs hold, each as its type's weights are (packed_difference), under its key.
json extras_difference(const DumpSentence& sa, const DumpSentence& sb) {
  json out = json::object();
  for (const AttentionMatrices& ea : sa.extras) {
    const AttentionMatrices* eb = sb.find_extra(ea.type);
    if (!eb || !compared_extra(ea.type)) continue;
    const MatricesDifference d = matrices_difference(ea, *eb);
    if (d.change.layers() == 0 || d.change.heads.empty()) continue;
    out[ea.type] = packed_difference(d, dump_schema::causal_matrices(ea.type));
  }
  return out;
}

// One attribution map of both runs ([rows][cols], NaN above the diagonal of a `lower` one) as
// data.js reads a difference: "f" B - A in single floats, "a" and "b" each run's map.
json attribution_map_difference(const std::vector<float>& a, const std::vector<float>& b, int rows,
                                int cols, bool lower, const std::string& what) {
  if (a.size() != b.size())  // the same tokens make the same shapes
    throw Error("the " + what + " of the two dumps have different shapes");
  std::vector<float> change(a.size());
  for (size_t k = 0; k < a.size(); ++k) change[k] = b[k] - a[k];
  json out = page_data::packed_attribution(change, rows, cols, lower, what);
  out["difference"] = true;
  out["a"] = page_data::encode_floats(page_data::kept_map(a, rows, cols, lower));
  out["b"] = page_data::encode_floats(page_data::kept_map(b, rows, cols, lower));
  out["masked_a"] = out["masked_b"] = json::array({json::array()});
  return out;
}

// The attributions both runs hold, by method (page_data::attributions' shape): each map's B - A
// and each run's, and for integrated gradients each run's steps, rule and completeness gaps
// ("runs"), which may differ (--ig-steps, --ig-rule).
json attributions_difference(const DumpSentence& sa, const DumpSentence& sb) {
  json out = json::object();
  const int T = static_cast<int>(sb.decoder_input_tokens.size());
  const int S = static_cast<int>(sb.source_tokens.size());
  for (const DumpAttribution& b : sb.attributions) {
    const DumpAttribution* a = nullptr;
    for (const DumpAttribution& x : sa.attributions)
      if (x.method == b.method) a = &x;
    if (!a) continue;
    const std::string what = b.method + " attributions of sentence " + std::to_string(sb.number);
    json entry = {{"source", attribution_map_difference(a->source, b.source, T, S, false, what)},
                  {"target", attribution_map_difference(a->target, b.target, T, T, true, what)}};
    if (b.steps > 0) {
      json runs = json::object();
      for (const auto& [name, run] : {std::pair{"a", a}, std::pair{"b", &b}})
        runs[name] = {{"steps", run->steps},
                      {"rule", run->rule},
                      {"gap", page_data::encode_floats(run->completeness_gap)}};
      entry["runs"] = std::move(runs);
    }
    out[b.method] = std::move(entry);
  }
  return out;
}

// The logit lens of both runs on the decoder layers both hold (by label, in A's order):
// "layers", and each run's predictions, "a" and "b" (lens.js: page_data::lens); null when
// either run has none.
json lens_difference(const DumpSentence& sa, const DumpSentence& sb) {
  if (sa.layer_predictions.empty() || sb.layer_predictions.empty()) return nullptr;
  const json la = page_data::lens(sa), lb = page_data::lens(sb);
  json out = {{"layers", json::array()}, {"a", json::array()}, {"b", json::array()}};
  const std::vector<std::string>& labels = sb.lens_layer_labels;
  for (size_t l = 0; l < sa.lens_layer_labels.size(); ++l) {
    const auto at = std::find(labels.begin(), labels.end(), sa.lens_layer_labels[l]);
    if (at == labels.end()) continue;
    out["layers"].push_back(sa.lens_layer_labels[l]);
    out["a"].push_back(la["predictions"][l]);
    out["b"].push_back(lb["predictions"][at - labels.begin()]);
  }
  return out["layers"].empty() ? json(nullptr) : out;
}

// Sentence `sb` of B and its twin `sa` of A (the same tokens): B's texts and tokens, each run's
// probability of each predicted piece (run_log_probs; none when either dump lacks them), per
// type both hold its difference, and the extras and logit lens both hold.
json sentence_difference(const DumpSentence& sa, const DumpSentence& sb, ViewSummary& summary) {
  json entry = page_data::sentence_texts(sb);
  entry["output_log_probs"] = json::array();
  entry["alternatives"] = json::array();
  if (!sa.output_log_probs.empty() && sa.output_log_probs.size() == sb.output_log_probs.size())
    entry["run_log_probs"] = {{"a", sa.output_log_probs}, {"b", sb.output_log_probs}};
  if (!sb.error.empty() || sb.blank()) return entry;
  const json inside = extras_difference(sa, sb);
  if (!inside.empty()) entry["inside"] = inside;
  const json attributions = attributions_difference(sa, sb);
  if (!attributions.empty()) entry["attributions"] = attributions;
  const json lens = lens_difference(sa, sb);
  if (!lens.is_null()) entry["lens"] = lens;
  for (const dump_schema::AttentionType& type : dump_schema::kAttentionTypes) {
    const AttentionMatrices* ma = sa.find(type.type);
    const AttentionMatrices* mb = sb.find(type.type);
    if (!ma || !mb) continue;
    const MatricesDifference d = matrices_difference(*ma, *mb);
    if (d.change.layers() == 0) continue;
    entry["attention"][type.type] = packed_difference(d, type.causal);
    summary.heatmaps += d.change.layers() * static_cast<int>(d.change.heads.size());
    summary.averages += d.change.layers();
  }
  return entry;
}

// What the page says about one run: its file, model, compute type and masked heads.
json run_data(const NamedDump& run) {
  return {{"name", run.name},
          {"model", run.dump.model},
          {"compute_type", run.dump.compute_type},
          {"masked_heads", run.dump.masked_heads}};
}

json change_data(const HeadChange& c) {
  return {{"type", c.type},         {"layer", c.layer}, {"head", c.head},
          {"change", c.change},     {"a", c.a},         {"b", c.b},
          {"sentence", c.sentence}, {"row", c.row},     {"col", c.col},
          {"query", c.query},       {"key", c.key},     {"masked_a", c.masked_a},
          {"masked_b", c.masked_b}};
}

}  // namespace

ViewSummary write_difference_page(const NamedDump& a, const NamedDump& b, std::ostream& out,
                                  const ViewOptions& options) {
  const std::vector<const DumpSentence*> shown =
      page_data::chosen_sentences(b.dump, options.sentences);
  std::vector<int> numbers;
  for (const DumpSentence* s : shown) numbers.push_back(s->number);
  const std::vector<HeadChange> changes = largest_changes(a, b, numbers);

  ViewSummary summary;
  summary.sentences = static_cast<int>(shown.size());
  json sentences = json::array();
  for (const DumpSentence* sb : shown)
    sentences.push_back(sentence_difference(a.dump.sentences.at(sb->number - 1), *sb, summary));
  // One colour scale for the whole page: the largest change of any head.
  float scale = 0;
  json listed = json::array();
  int unchanged = 0;
  for (const HeadChange& c : changes) {
    scale = std::max(scale, std::fabs(c.change));
    if (is_unchanged(c))
      ++unchanged;
    else
      listed.push_back(change_data(c));
  }
  json data = {{"title", view::valid_utf8(options.title.empty() ? "minimt attention: B - A"
                                                                : options.title)},
               {"model", ""},
               {"types", b.dump.types},
               {"kinds", page_data::kinds()},
               {"sentences", std::move(sentences)},
               {"difference",
                {{"a", run_data(a)},
                 {"b", run_data(b)},
                 {"scale", scale},
                 {"changes", std::move(listed)},
                 {"unchanged", unchanged}}}};
  page_data::write_page(out, data, false);
  summary.largest_change = scale;
  return summary;
}

}  // namespace minimt
