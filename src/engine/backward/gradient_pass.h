// One batched forward and backward of a sentence for attribution: V variants (each with every
// source and decoder input embedding row multiplied by alpha_v), T seeds per variant (seed t
// differentiates f_t = log p(y_t | x, y_<t)).
#pragma once

#include <vector>

#include "engine/backward/dense_model.h"
#include "minimt/engine/head_mask.h"

namespace minimt::backward {

struct SentenceIds {
  const std::vector<int>* source = nullptr;         // S
  const std::vector<int>* decoder_input = nullptr;  // T
  const std::vector<int>* output = nullptr;         // T
  // The embedding rows, [S, d] and [T, d]; null: looked up in the tables by id (the tests
  // perturb them for finite differences).
  const float* source_rows = nullptr;
  const float* target_rows = nullptr;
};

struct GradientPass {
  std::vector<float> log_probs;    // [V][T]: f_t of each variant
  std::vector<float> source_grad;  // [V][T][S][d]: df_t/de_i at the variant's rows
  std::vector<float> target_grad;  // [V][T][T][d]: df_t/dd_j (0 for j > t)
};

// With backward false only log_probs is filled.
GradientPass gradient_pass(const DenseModel& m, const HeadMask* mask, const SentenceIds& ids,
                           const std::vector<double>& alphas, bool backward);

}  // namespace minimt::backward
