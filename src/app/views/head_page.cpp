#include "minimt/app/views/head_page.h"

#include <cmath>

#include "minimt/app/record/dump_recorder.h"
#include "minimt/app/views/head_report.h"

namespace minimt {
namespace {

using nlohmann::json;

// The most likely tokens kept at each position, as translate --view keeps them.
constexpr int kExampleAlternatives = 5;

// A number of the data: JSON has no infinity or NaN, so those are printf's spelling of them.
json number(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return value;
}

}  // namespace

json head_page_data(const HeadAnalysis& a) {
  json ranked = json::array();
  for (const HeadResult& h : a.heads) {
    json head = {{"type", kind_name(h.kind)}, {"layer", h.layer}, {"head", h.head}};
    for (const auto& [name, value] : head_numbers(h))
      if (value) head[name] = number(*value);
    ranked.push_back(std::move(head));
  }
  json prune = json::array();
  for (const PrunePoint& p : a.prune) {
    json point = {{"removed", p.removed},
                  {"head", p.head},
                  {"log_prob_per_token", number(p.log_prob_per_token)}};
    if (p.exact_match) point["exact_match"] = number(*p.exact_match);
    prune.push_back(std::move(point));
  }
  json data = {{"sentences", a.sentences},
               {"tokens", a.tokens},
               {"log_prob_per_token", number(a.log_prob_per_token)},
               {"ranked", std::move(ranked)},
               {"prune", std::move(prune)}};
  if (a.exact_match) data["exact_match"] = number(*a.exact_match);
  return data;
}

AttentionDump record_examples(const Translator& translator, const std::vector<SentencePair>& pairs,
                              int count) {
  TranslateOptions options;
  options.columns = LineColumns::kSourceAndTarget;
  options.record_attention = true;
  options.alternatives = kExampleAlternatives;
  std::vector<std::string> lines;
  for (size_t i = 0; i < pairs.size() && static_cast<int>(i) < count; ++i)
    lines.push_back(pairs[i].source + '\t' + pairs[i].reference);
  const DumpRecorder recorder(translator.model());
  AttentionDump dump = recorder.header();
  for (const Translation& t : translator.translate(lines, options))
    dump.sentences.push_back(recorder.record(t, static_cast<int>(dump.sentences.size()) + 1));
  return dump;
}

ViewSummary write_head_page(const HeadAnalysis& analysis, const AttentionDump& examples,
                            std::ostream& out) {
  ViewOptions options;
  options.title = "minimt heads";
  options.heads = head_page_data(analysis);
  return write_attention_page(examples, out, options);
}

}  // namespace minimt
