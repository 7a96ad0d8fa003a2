// Greedy search. It sees the decoder only through its step function.
#pragma once

#include <vector>

#include "minimt/engine/decoder.h"

namespace minimt {

struct Hypothesis {
  std::vector<int> tokens;       // generated ids, incl. eos when it was produced
  std::vector<float> log_probs;  // log-probability of each generated token
  float score() const;           // sum of log_probs
};

struct SearchOptions {
  int start_token = 0;
  int eos = 0;
  int max_length = 256;  // generated tokens, eos included
};

// Arg-max at every step (lowest id on a tie) until eos or max_length. Finished sentences leave
// the batch, so later steps only compute the ones still going.
std::vector<Hypothesis> greedy_search(Decoder& decoder, std::vector<DecoderState>& states,
                                      const SearchOptions& options, int vocab_size);

}  // namespace minimt
