#include "search_start.h"

#include <algorithm>

#include "minimt/engine/ops.h"

namespace minimt::search_detail {

SearchStart start_search(Decoder& decoder, std::vector<DecoderState>& states,
                         const std::vector<SearchRequest>& requests, const SearchOptions& options,
                         int vocab_size) {
  SearchStart start;
  const size_t count = states.size();
  start.forced.resize(count);
  start.logits.resize(count * vocab_size);
  if (options.max_length <= 0 || count == 0) return start;
  std::vector<std::vector<int>> runs(count);
  std::vector<DecoderState*> pointers;
  for (size_t b = 0; b < count; ++b) {
    std::vector<int> prefix = b < requests.size() ? requests[b].prefix : std::vector<int>{};
    if (static_cast<int>(prefix.size()) > options.max_length) prefix.resize(options.max_length);
    runs[b].push_back(options.start_token);
    runs[b].insert(runs[b].end(), prefix.begin(), prefix.end());
    start.forced[b].tokens = std::move(prefix);
    pointers.push_back(&states[b]);
  }
  const std::vector<float>& logits = decoder.run(runs, pointers);  // [sum of run lengths, V]
  size_t row = 0;
  for (size_t b = 0; b < count; ++b) {
    Hypothesis& forced = start.forced[b];
    // Row i predicts the token after run[i]: the prefix token i, then the free next one.
    for (size_t i = 0; i < forced.tokens.size(); ++i, ++row) {
      const float* r = logits.data() + row * vocab_size;
      forced.log_probs.push_back(r[forced.tokens[i]] - ops::log_sum_exp(r, vocab_size));
    }
    std::copy(logits.begin() + row * vocab_size, logits.begin() + (row + 1) * vocab_size,
              start.logits.begin() + b * vocab_size);
    ++row;
    if (static_cast<int>(forced.tokens.size()) < options.max_length)
      start.open.push_back(static_cast<int>(b));
  }
  return start;
}

}  // namespace minimt::search_detail
