#include "minimt/engine/search.h"

#include <cmath>
#include <numeric>

#include "beam_search.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/sampler.h"
#include "search_start.h"

namespace minimt {
namespace {

using search_detail::SearchStart;

// One hypothesis per sentence: the arg-max, or a draw, at every step. Finished sentences leave
// the batch, so later steps only compute the ones still going.
std::vector<Hypothesis> single_path_search(Decoder& decoder, std::vector<DecoderState>& states,
                                           const std::vector<SearchRequest>& requests,
                                           const SearchOptions& options, int vocab_size) {
  SearchStart start = search_detail::start_search(decoder, states, requests, options, vocab_size);
  std::vector<Hypothesis> results = std::move(start.forced);
  std::vector<TokenSampler> samplers;
  if (options.sampling.enabled)
    for (size_t b = 0; b < states.size(); ++b)
      samplers.emplace_back(options.sampling, b < requests.size() ? requests[b].seed : 0);
  std::vector<int> active = std::move(start.open);  // indices into states still decoding
  std::vector<int> still_active, next_tokens;
  std::vector<DecoderState*> batch;
  std::vector<float> ruled;                   // a row with the generation rules applied
  std::vector<int> history;                   // the decoder's input: start token, then the output
  const float* logits = start.logits.data();  // the first pass: one row per state, all of them
  bool first = true;
  while (!active.empty()) {
    still_active.clear();
    next_tokens.clear();
    for (size_t i = 0; i < active.size(); ++i) {
      const int b = active[i];
      const float* row = logits + static_cast<size_t>(first ? b : i) * vocab_size;
      if (options.rules.active()) {  // on the logits, before the arg-max or the draw
        ruled.assign(row, row + vocab_size);
        history.assign(1, options.start_token);
        history.insert(history.end(), results[b].tokens.begin(), results[b].tokens.end());
        apply_generation_rules(options.rules, history, options.max_length, ruled.data(),
                               vocab_size);
        row = ruled.data();
      }
      const int token =
          samplers.empty() ? ops::argmax(row, vocab_size) : samplers[b].draw(row, vocab_size);
      Hypothesis& hypothesis = results[b];
      hypothesis.tokens.push_back(token);
      hypothesis.log_probs.push_back(row[token] - ops::log_sum_exp(row, vocab_size));
      hypothesis.finished = token == options.eos;
      if (!hypothesis.finished && static_cast<int>(hypothesis.tokens.size()) < options.max_length) {
        still_active.push_back(b);
        next_tokens.push_back(token);
      }
    }
    active.swap(still_active);
    if (active.empty()) break;
    batch.clear();
    for (int b : active) batch.push_back(&states[b]);
    logits = decoder.step(next_tokens, batch).data();  // [active, V]
    first = false;
  }
  return results;
}

}  // namespace

float Hypothesis::score() const {
  return std::accumulate(log_probs.begin(), log_probs.end(), 0.0f);
}

double ranking_score(const Hypothesis& hypothesis, float length_penalty, BeamRules rules) {
  double sum = 0.0;
  for (float log_prob : hypothesis.log_probs) sum += log_prob;
  const size_t cut = rules == BeamRules::kTransformers && !hypothesis.finished ? 1 : 0;
  const size_t length = hypothesis.tokens.size() + cut;
  if (length_penalty == 0.0f || length == 0) return sum;
  return sum / std::pow(static_cast<double>(length), length_penalty);
}

std::vector<std::vector<Hypothesis>> search(Decoder& decoder, std::vector<DecoderState>& states,
                                            const std::vector<SearchRequest>& requests,
                                            const SearchOptions& options, int vocab_size) {
  if (options.beam_size > 1)
    return search_detail::beam_search(decoder, states, requests, options, vocab_size);
  std::vector<std::vector<Hypothesis>> results;
  for (auto& hypothesis : single_path_search(decoder, states, requests, options, vocab_size))
    results.push_back({std::move(hypothesis)});
  return results;
}

std::vector<Hypothesis> greedy_search(Decoder& decoder, std::vector<DecoderState>& states,
                                      const SearchOptions& options, int vocab_size) {
  SearchOptions greedy = options;
  greedy.beam_size = 1;
  greedy.sampling.enabled = false;
  return single_path_search(decoder, states, {}, greedy, vocab_size);
}

}  // namespace minimt
