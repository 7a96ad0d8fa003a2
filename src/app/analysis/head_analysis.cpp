#include "minimt/app/analysis/head_analysis.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "minimt/base/error.h"

namespace minimt {
namespace {

struct Pass {
  double log_prob = 0;
  long long tokens = 0;
};

// The reference's log-probability under mask, by teacher forcing, over the pairs that score;
// every result, scored or not, goes to on_result (with the attention recorded).
Pass score_pass(const Translator& translator, const std::vector<SentencePair>& pairs,
                const std::shared_ptr<const HeadMask>& mask, int batch_size,
                const std::function<void(size_t pair, const Translation&)>& on_result = {},
                const AttributionOptions& attribution = {}) {
  TranslateOptions options;
  options.columns = LineColumns::kSourceAndTarget;
  options.head_mask = mask;
  options.record_attention = static_cast<bool>(on_result);
  options.attribution = attribution;
  Pass pass;
  for (size_t begin = 0; begin < pairs.size(); begin += batch_size) {
    std::vector<std::string> lines;
    for (size_t i = begin; i < std::min(pairs.size(), begin + batch_size); ++i)
      lines.push_back(pairs[i].source + '\t' + pairs[i].reference);
    const std::vector<Translation> results = translator.translate(lines, options);
    for (size_t k = 0; k < results.size(); ++k) {
      const Translation& t = results[k];
      if (t.ok()) {
        pass.log_prob += t.score;
        pass.tokens += static_cast<long long>(t.log_probs.size());
      }
      if (on_result) on_result(begin + k, t);
    }
  }
  return pass;
}

// The greedy translation of every pair's source under mask.
std::vector<std::string> greedy_texts(const Translator& translator,
                                      const std::vector<SentencePair>& pairs,
                                      const std::shared_ptr<const HeadMask>& mask, int batch_size) {
  TranslateOptions options;
  options.head_mask = mask;
  std::vector<std::string> texts;
  for (size_t begin = 0; begin < pairs.size(); begin += batch_size) {
    std::vector<std::string> lines;
    for (size_t i = begin; i < std::min(pairs.size(), begin + batch_size); ++i)
      lines.push_back(pairs[i].source);
    for (Translation& t : translator.translate(lines, options)) texts.push_back(std::move(t.text));
  }
  return texts;
}

// The share of pairs whose greedy translation is the reference.
double exact_match_share(const std::vector<SentencePair>& pairs,
                         const std::vector<std::string>& texts) {
  long long same = 0;
  for (size_t i = 0; i < pairs.size(); ++i) same += texts[i] == pairs[i].reference;
  return pairs.empty() ? 0.0 : static_cast<double>(same) / static_cast<double>(pairs.size());
}

// Runs work(i) for i in [0, count) on `threads` threads.
void parallel_for(int count, int threads, const std::function<void(int)>& work) {
  std::atomic<int> next{0};
  auto worker = [&] {
    for (int i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min(threads, count); ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
}

int layers_of(const ModelConfig& c, AttentionKind kind) {
  return kind == AttentionKind::kEncoder ? c.encoder_layers : c.decoder_layers;
}

// How often the mean of cross heads has its largest weight where the attribution is largest.
struct MeanAgreement {
  std::vector<long long> layers;  // [decoder layer]: the mean of its heads
  long long all = 0;              // the mean of every head of every layer
  long long rows = 0;
};

// The first key of the largest value in row.
size_t arg_max(const std::vector<float>& row) {
  return std::max_element(row.begin(), row.end()) - row.begin();
}

// |attribution| [T][S] of the one method t was attributed with; empty: none.
std::vector<std::vector<float>> evidence_rows(const Translation& t) {
  std::vector<std::vector<float>> rows;
  if (!t.attributions) return rows;
  const AttributionResult& a = *t.attributions;
  for (const AttributionMap& map : a.maps) {
    if (!map.present) continue;
    for (int i = 0; i < a.target_length; ++i) {
      rows.emplace_back(a.source_length);
      for (int j = 0; j < a.source_length; ++j)
        rows[i][j] = std::fabs(map.source[static_cast<size_t>(i) * a.source_length + j]);
    }
    break;
  }
  return rows;
}

// Adds one sentence's rows to the statistics of every head, and to the agreement of the cross
// heads' means with its attributions when it has them.
void add_sentence(const ModelConfig& c, const Translation& sentence, std::vector<HeadResult>& heads,
                  MeanAgreement& means) {
  const AttentionRecord& r = *sentence.attention;
  const int s = r.source_length, t = r.steps(), layers = c.decoder_layers;
  const std::vector<std::vector<float>> evidence = evidence_rows(sentence);
  const bool attributed = static_cast<int>(evidence.size()) == t;
  // Each layer's mean of its cross heads (summed in float, w / heads each, as the alignment
  // sums it), and the mean of every cross head (w / (layers x heads) each).
  using Rows = std::vector<std::vector<float>>;
  std::vector<Rows> average(layers, Rows(t, std::vector<float>(s, 0.0f)));
  Rows all(attributed ? t : 0, std::vector<float>(s, 0.0f));
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < s; ++j)
        for (int h = 0; h < c.num_heads; ++h) {
          average[l][i][j] += r.cross(l, h, i, j) / c.num_heads;
          if (attributed) all[i][j] += r.cross(l, h, i, j) / (layers * c.num_heads);
        }
  if (attributed && s >= 2) {  // rows of one key say nothing (add_pattern_rows)
    means.layers.resize(layers);
    for (int i = 0; i < t; ++i) {
      const size_t top = arg_max(evidence[i]);
      for (int l = 0; l < layers; ++l) means.layers[l] += arg_max(average[l][i]) == top;
      means.all += arg_max(all[i]) == top;
      ++means.rows;
    }
  }
  for (HeadResult& head : heads) {
    Rows rows;
    const int l = head.layer;
    if (head.kind == AttentionKind::kEncoder) {
      for (int i = 0; i < s; ++i) {
        rows.emplace_back(s);
        for (int j = 0; j < s; ++j) rows[i][j] = r.encoder(l, head.head, i, j);
      }
      add_pattern_rows(head.pattern, rows, true, s - 1, nullptr);
    } else if (head.kind == AttentionKind::kDecoder) {
      for (int i = 0; i < t; ++i) {
        rows.emplace_back(i + 1);
        for (int j = 0; j <= i; ++j) rows[i][j] = r.decoder_self(l, head.head, i, j);
      }
      add_pattern_rows(head.pattern, rows, true, -1, nullptr);
    } else {
      for (int i = 0; i < t; ++i) {
        rows.emplace_back(s);
        for (int j = 0; j < s; ++j) rows[i][j] = r.cross(l, head.head, i, j);
      }
      add_pattern_rows(head.pattern, rows, false, s - 1, &average[l],
                       attributed ? &evidence : nullptr);
    }
  }
}

}  // namespace

void add_pattern_rows(PatternStats& stats, const std::vector<std::vector<float>>& rows,
                      bool self_attention, int eos_key,
                      const std::vector<std::vector<float>>* average_rows,
                      const std::vector<std::vector<float>>* attribution_rows) {
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::vector<float>& row = rows[i];
    if (row.size() < 2) continue;  // one key: weight 1 whatever the head does
    double entropy = 0;
    for (float p : row)
      if (p > 0) entropy -= p * std::log(static_cast<double>(p));
    stats.entropy += entropy;
    const auto top = std::max_element(row.begin(), row.end());
    stats.max_weight += *top;
    stats.first += row[0];
    if (self_attention) {
      stats.same = stats.same.value_or(0) + (i < row.size() ? row[i] : 0.0f);
      if (i > 0) {
        stats.previous = stats.previous.value_or(0) + row[i - 1];
        ++stats.previous_rows;
      }
    }
    if (eos_key >= 0) stats.eos = stats.eos.value_or(0) + row[eos_key];
    if (average_rows) {
      const std::vector<float>& average = (*average_rows)[i];
      const bool agree =
          top - row.begin() == std::max_element(average.begin(), average.end()) - average.begin();
      stats.alignment_agreement = stats.alignment_agreement.value_or(0) + (agree ? 1.0 : 0.0);
    }
    if (attribution_rows) {
      const bool agree = static_cast<size_t>(top - row.begin()) == arg_max((*attribution_rows)[i]);
      stats.attribution_agreement = stats.attribution_agreement.value_or(0) + (agree ? 1.0 : 0.0);
    }
    ++stats.rows;
  }
}

void finish_pattern(PatternStats& stats) {
  if (stats.rows == 0) return;
  const double n = static_cast<double>(stats.rows);
  stats.entropy /= n;
  stats.max_weight /= n;
  stats.first /= n;
  if (stats.same) *stats.same /= n;
  if (stats.previous && stats.previous_rows) *stats.previous /= stats.previous_rows;
  if (stats.eos) *stats.eos /= n;
  if (stats.alignment_agreement) *stats.alignment_agreement /= n;
  if (stats.attribution_agreement) *stats.attribution_agreement /= n;
}

HeadAnalysis analyse_heads(const Translator& translator, const std::vector<SentencePair>& pairs,
                           const HeadAnalysisOptions& options) {
  const ModelConfig& c = translator.model().config();
  HeadAnalysis analysis;
  for (AttentionKind kind :
       {AttentionKind::kEncoder, AttentionKind::kDecoder, AttentionKind::kCross})
    for (int l = 0; l < layers_of(c, kind); ++l)
      for (int h = 0; h < c.num_heads; ++h) analysis.heads.push_back({kind, l, h, 0, {}, {}});
  auto report = [&](const std::string& what) {
    if (options.progress) options.progress(what);
  };

  report("the unmasked model");
  std::vector<SentencePair> kept;  // the pairs that score; the others are reported, left out
  MeanAgreement means;
  auto take_unmasked = [&](size_t i, const Translation& t) {
    if (!t.ok()) {
      if (options.bad_pair) options.bad_pair(pairs[i], t.error);
      return;
    }
    if (t.truncated && options.source_cut) options.source_cut(pairs[i]);
    kept.push_back(pairs[i]);
    if (t.attention) add_sentence(c, t, analysis.heads, means);
  };
  AttributionOptions attribution;
  if (options.attribution) attribution.methods = {*options.attribution};
  attribution.ig_steps = options.ig_steps;
  attribution.ig_rule = options.ig_rule;
  const Pass base =
      score_pass(translator, pairs, nullptr, options.batch_size, take_unmasked, attribution);
  if (kept.empty()) throw InputError("minimt heads: no pair in the input could be scored");
  analysis.sentences = static_cast<int>(kept.size());
  for (HeadResult& head : analysis.heads) finish_pattern(head.pattern);
  if (options.attribution) {
    analysis.attribution = options.attribution;
    if (*options.attribution == AttributionMethod::kIntegratedGradients) {
      analysis.ig_steps = options.ig_steps;
      analysis.ig_rule = options.ig_rule;
    }
    const double rows = means.rows ? static_cast<double>(means.rows) : 1.0;
    for (long long agree : means.layers)
      analysis.layer_attribution_agreement.push_back(agree / rows);
    analysis.all_layers_attribution_agreement = means.all / rows;
  }
  analysis.tokens = base.tokens;
  const double per_token = base.tokens ? 1.0 / static_cast<double>(base.tokens) : 0.0;
  analysis.log_prob_per_token = base.log_prob * per_token;
  std::vector<std::string> unmasked_texts;
  if (options.translate) {
    unmasked_texts = greedy_texts(translator, kept, nullptr, options.batch_size);
    analysis.exact_match = exact_match_share(kept, unmasked_texts);
  }

  std::mutex progress_lock;
  int done = 0;
  parallel_for(static_cast<int>(analysis.heads.size()), options.threads, [&](int i) {
    HeadResult& head = analysis.heads[i];
    auto mask = std::make_shared<HeadMask>(c.encoder_layers, c.decoder_layers, c.num_heads);
    mask->mask(head.kind, head.layer, head.head);
    const Pass masked = score_pass(translator, kept, mask, options.batch_size);
    head.delta_log_prob = (masked.log_prob - base.log_prob) * per_token;
    if (options.translate) {
      const std::vector<std::string> texts =
          greedy_texts(translator, kept, mask, options.batch_size);
      head.delta_exact_match = exact_match_share(kept, texts) - *analysis.exact_match;
      for (size_t k = 0; k < kept.size(); ++k)
        if (texts[k] != unmasked_texts[k])
          head.changed.push_back({kept[k].line, unmasked_texts[k], texts[k]});
    }
    std::lock_guard<std::mutex> lock(progress_lock);
    report("head " + std::to_string(++done) + " of " + std::to_string(analysis.heads.size()));
  });
  std::stable_sort(
      analysis.heads.begin(), analysis.heads.end(),
      [](const HeadResult& a, const HeadResult& b) { return a.delta_log_prob < b.delta_log_prob; });
  if (!options.prune_order) return analysis;

  // Michel et al. 2019: remove heads one at a time, the least important first.
  const int count = static_cast<int>(analysis.heads.size());
  analysis.prune.resize(count + 1);
  parallel_for(count + 1, options.threads, [&](int removed) {
    auto mask = std::make_shared<HeadMask>(c.encoder_layers, c.decoder_layers, c.num_heads);
    for (int k = 0; k < removed; ++k) {
      const HeadResult& head = analysis.heads[count - 1 - k];
      mask->mask(head.kind, head.layer, head.head);
    }
    PrunePoint& point = analysis.prune[removed];
    point.removed = removed;
    if (removed > 0) {
      const HeadResult& head = analysis.heads[count - removed];
      point.head = std::string(kind_name(head.kind)) + ":" + std::to_string(head.layer) + ":" +
                   std::to_string(head.head);
    }
    point.log_prob_per_token =
        score_pass(translator, kept, removed ? mask : nullptr, options.batch_size).log_prob *
        per_token;
    if (options.translate)
      point.exact_match = exact_match_share(
          kept, greedy_texts(translator, kept, removed ? mask : nullptr, options.batch_size));
    std::lock_guard<std::mutex> lock(progress_lock);
    report("pruning: " + std::to_string(removed) + " heads removed");
  });
  return analysis;
}

}  // namespace minimt
