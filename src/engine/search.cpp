#include "minimt/engine/search.h"

#include <algorithm>
#include <numeric>

#include "minimt/engine/ops.h"

namespace minimt {

float Hypothesis::score() const {
  return std::accumulate(log_probs.begin(), log_probs.end(), 0.0f);
}

std::vector<Hypothesis> greedy_search(Decoder& decoder, std::vector<DecoderState>& states,
                                      const SearchOptions& options, int vocab_size) {
  std::vector<Hypothesis> results(states.size());
  if (options.max_length <= 0) return results;
  std::vector<int> active(states.size());  // indices into states still decoding
  std::iota(active.begin(), active.end(), 0);
  std::vector<int> tokens(states.size(), options.start_token);
  std::vector<DecoderState*> batch;
  std::vector<int> still_active, next_tokens;  // reused: the loop allocates nothing
  const size_t expected_length = std::min(options.max_length, 256);
  for (auto& result : results) {
    result.tokens.reserve(expected_length);
    result.log_probs.reserve(expected_length);
  }

  while (!active.empty()) {
    batch.clear();
    for (int index : active) batch.push_back(&states[index]);
    const std::vector<float>& logits = decoder.step(tokens, batch);  // [B, V]
    still_active.clear();
    next_tokens.clear();
    for (size_t b = 0; b < active.size(); ++b) {
      const float* row = logits.data() + b * vocab_size;
      int best = ops::argmax(row, vocab_size);
      Hypothesis& hypothesis = results[active[b]];
      hypothesis.tokens.push_back(best);
      hypothesis.log_probs.push_back(row[best] - ops::log_sum_exp(row, vocab_size));
      bool done =
          best == options.eos || static_cast<int>(hypothesis.tokens.size()) >= options.max_length;
      if (!done) {
        still_active.push_back(active[b]);
        next_tokens.push_back(best);
      }
    }
    active.swap(still_active);
    tokens.swap(next_tokens);
  }
  return results;
}

}  // namespace minimt
