#include "minimt/engine/sampler.h"

#include <algorithm>
#include <cmath>

#include "engine/highest_first.h"

namespace minimt {
namespace {

// SplitMix64 (Steele, Lea and Flood 2014): a tiny generator whose outputs pass BigCrush, and a
// good mixer of nearby seeds (line 1, line 2, ...).
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t line_seed(uint64_t seed, long long line) {
  uint64_t state = seed;
  uint64_t mixed = splitmix64(state) ^ static_cast<uint64_t>(line);
  return splitmix64(mixed);
}

TokenSampler::TokenSampler(const SamplingOptions& options, uint64_t seed)
    : options_(options), state_(seed) {}

double TokenSampler::uniform() {
  return static_cast<double>(splitmix64(state_) >> 11) * 0x1.0p-53;
}

int TokenSampler::draw(const float* logits, int vocab_size) {
  const double inverse_temperature = 1.0 / options_.temperature;
  const int k = options_.top_k > 0 ? std::min(options_.top_k, vocab_size) : vocab_size;
  // Only a truncation needs the ranking; a plain draw walks the ids in order.
  const bool truncated = k < vocab_size || options_.top_p < 1.0f;
  order_highest_first(logits, vocab_size, truncated ? k : 0, ranked_);
  const float peak = *std::max_element(logits, logits + vocab_size);
  std::vector<double>& weights = weights_;  // unnormalized probabilities of the first k ranked
  weights.resize(k);
  double total = 0.0;
  for (int i = 0; i < k; ++i)
    total += weights[i] =
        std::exp((static_cast<double>(logits[ranked_[i]]) - peak) * inverse_temperature);
  int kept = k;
  if (options_.top_p < 1.0f) {
    double sum = 0.0;
    kept = 0;
    while (kept < k && (kept == 0 || sum < options_.top_p * total)) sum += weights[kept++];
    total = sum;
  }
  double u = uniform() * total;
  for (int i = 0; i < kept; ++i) {
    if (u < weights[i]) return ranked_[i];
    u -= weights[i];
  }
  return ranked_[kept - 1];  // rounding left u just above the last weight
}

}  // namespace minimt
