#include "minimt/engine/teacher_forcing.h"

#include <algorithm>
#include <cmath>

#include "engine/highest_first.h"
#include "minimt/engine/ops.h"

namespace minimt {
namespace {

std::vector<TokenProbability> most_likely(const float* row, int vocab_size, float normalizer,
                                          int count, std::vector<int>& order) {
  const int take = std::min(count, vocab_size);
  order_highest_first(row, vocab_size, take, order);
  std::vector<TokenProbability> result;
  for (int r = 0; r < take; ++r) result.push_back({order[r], std::exp(row[order[r]] - normalizer)});
  return result;
}

}  // namespace

std::vector<ForcedOutput> teacher_force(Decoder& decoder, const std::vector<DecoderState*>& states,
                                        const std::vector<const std::vector<int>*>& outputs,
                                        int start_token, int alternatives, int vocab_size) {
  std::vector<ForcedOutput> results(states.size());
  std::vector<std::vector<int>> runs;
  std::vector<DecoderState*> running;
  std::vector<size_t> which;  // results index of each run
  for (size_t i = 0; i < states.size(); ++i) {
    const std::vector<int>& output = *outputs[i];
    if (output.empty()) continue;
    std::vector<int> run{start_token};  // the decoder input: the output shifted right
    run.insert(run.end(), output.begin(), output.end() - 1);
    runs.push_back(std::move(run));
    running.push_back(states[i]);
    which.push_back(i);
  }
  if (runs.empty()) return results;
  const std::vector<float>& logits = decoder.run(runs, running);  // [sum of lengths, V]
  std::vector<int> order;
  size_t row = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    ForcedOutput& result = results[which[r]];
    const std::vector<int>& output = *outputs[which[r]];
    for (size_t t = 0; t < output.size(); ++t, ++row) {
      const float* logit = logits.data() + row * vocab_size;
      const float normalizer = ops::log_sum_exp(logit, vocab_size);
      result.log_probs.push_back(logit[output[t]] - normalizer);
      if (alternatives > 0)
        result.alternatives.push_back(
            most_likely(logit, vocab_size, normalizer, alternatives, order));
    }
  }
  return results;
}

}  // namespace minimt
