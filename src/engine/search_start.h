// The first decoder pass of every search: the start token and any forced prefix, in one run.
#pragma once

#include <vector>

#include "minimt/engine/search.h"

namespace minimt::search_detail {

struct SearchStart {
  std::vector<Hypothesis> forced;  // per state: the prefix with its log-probabilities
  std::vector<float> logits;       // per state: the next-token logits after it, [B, V]
  std::vector<int> open;           // the states that may still generate, in order
};

// Feeds <start> + prefix to each state in one pass (the prefix cut to max_length tokens).
SearchStart start_search(Decoder& decoder, std::vector<DecoderState>& states,
                         const std::vector<SearchRequest>& requests, const SearchOptions& options,
                         int vocab_size);

}  // namespace minimt::search_detail
