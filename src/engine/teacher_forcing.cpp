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

// The most likely `count` tokens of each of `rows` rows of logits [rows, V].
std::vector<std::vector<TokenProbability>> most_likely_rows(const float* logits, int rows,
                                                            int vocab_size, int count,
                                                            std::vector<int>& order) {
  std::vector<std::vector<TokenProbability>> out;
  for (int r = 0; r < rows; ++r) {
    const float* row = logits + static_cast<size_t>(r) * vocab_size;
    out.push_back(most_likely(row, vocab_size, ops::log_sum_exp(row, vocab_size), count, order));
  }
  return out;
}

// The logit lens of one run: every layer but the last read through the output side again; the
// last layer's output is what made `logits` [rows, V].
std::vector<std::vector<std::vector<TokenProbability>>> lens(Decoder& decoder,
                                                             const AttentionRecord& record,
                                                             const float* logits, int rows,
                                                             int vocab_size, int count,
                                                             std::vector<int>& order) {
  std::vector<std::vector<std::vector<TokenProbability>>> layers;
  const size_t first = record.layer_states.size() - rows;  // this run's steps
  for (int l = 0; l + 1 < record.decoder_layers; ++l)
    layers.push_back(most_likely_rows(decoder.layer_logits(record, l, first, rows).data(), rows,
                                      vocab_size, count, order));
  layers.push_back(most_likely_rows(logits, rows, vocab_size, count, order));
  return layers;
}

}  // namespace

std::vector<ForcedOutput> teacher_force(Decoder& decoder, const std::vector<DecoderState*>& states,
                                        const std::vector<const std::vector<int>*>& outputs,
                                        int start_token, int alternatives, int vocab_size,
                                        int lens_top) {
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
    const AttentionRecord* record = running[r]->record;
    if (lens_top > 0 && record && record->extras.layer_states)
      result.layer_predictions = lens(decoder, *record, logits.data() + row * vocab_size,
                                      static_cast<int>(output.size()), vocab_size, lens_top, order);
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
