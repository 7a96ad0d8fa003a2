// Drawing the next token at random from the model's distribution, reshaped by a temperature,
// top-k and top-p, with a generator of its own so that one sentence's draws depend on nothing
// else (not on the batch it runs in, nor the thread).
#pragma once

#include <cstdint>
#include <vector>

#include "minimt/engine/search.h"

namespace minimt {

// A well-mixed seed for the generator of one input line, from the run's seed and the line.
uint64_t line_seed(uint64_t seed, long long line);

class TokenSampler {
 public:
  TokenSampler(const SamplingOptions& options, uint64_t seed);

  // One draw from softmax(logits / temperature) restricted to the top_k most likely tokens,
  // then to the fewest most likely ones whose probability reaches top_p, renormalized. Ties in
  // the ranking go to the lower id.
  int draw(const float* logits, int vocab_size);

  // The next number of the generator, uniform in [0, 1) with 53 random bits.
  double uniform();

 private:
  SamplingOptions options_;
  uint64_t state_;
  std::vector<int> ranked_;  // token ids, most likely first
  std::vector<double> weights_;
};

}  // namespace minimt
