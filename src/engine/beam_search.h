// Beam search (see docs/search.md): the best beam_size extensions per step among 2 * beam_size
// candidates, finished hypotheses leaving the beam, a length penalty on the final ranking.
#pragma once

#include <vector>

#include "minimt/engine/search.h"

namespace minimt::search_detail {

std::vector<std::vector<Hypothesis>> beam_search(Decoder& decoder,
                                                 std::vector<DecoderState>& states,
                                                 const std::vector<SearchRequest>& requests,
                                                 const SearchOptions& options, int vocab_size);

}  // namespace minimt::search_detail
