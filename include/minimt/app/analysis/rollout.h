// Attention rollout (Abnar and Zuidema 2020, "Quantifying Attention Flow in Transformers"): how
// much each encoder output position mixes each source piece, if attention alone moved
// information and the residual connection carried the rest in equal measure. A heuristic, not
// an explanation: it ignores the values, the feed-forward layers and the layer norms.
#pragma once

#include <vector>

#include "minimt/engine/attention_record.h"

namespace minimt {

// A dense row-major matrix; row i: query i's weights over the keys.
struct RolloutMatrix {
  int rows = 0, cols = 0;
  std::vector<double> values;

  RolloutMatrix() = default;
  RolloutMatrix(int r, int c) : rows(r), cols(c), values(static_cast<size_t>(r) * c, 0.0) {}
  double& at(int i, int j) { return values[static_cast<size_t>(i) * cols + j]; }
  double at(int i, int j) const { return values[static_cast<size_t>(i) * cols + j]; }
};

// The residual share of each rollout step: A' = (1 - kRolloutResidual) A + kRolloutResidual I.
inline constexpr double kRolloutResidual = 0.5;

// Each row divided by its sum; rows summing to 0 (every head masked) stay 0.
RolloutMatrix normalize_rows(RolloutMatrix m);

// left x right; throws Error when the inner sizes differ.
RolloutMatrix multiply(const RolloutMatrix& left, const RolloutMatrix& right);

// The rollout of a stack of square self-attention matrices, first layer first (each already
// averaged over heads): R = A'_L ... A'_1 with A'_l = normalize_rows(0.5 normalize_rows(A_l) +
// 0.5 I), so that masked heads (rows of zeros) are left out of the average, as the page's
// averages leave them out. With no layers, the identity of size `size`. Throws Error for a
// matrix that is not size x size.
RolloutMatrix attention_rollout(const std::vector<RolloutMatrix>& layers, int size);

// Target-to-source relevance: normalize_rows(cross) x encoder_rollout, cross being [T][S]
// decoder-to-encoder weights (averaged over heads) and encoder_rollout [S][S].
RolloutMatrix cross_rollout(const RolloutMatrix& cross, const RolloutMatrix& encoder_rollout);

// The mean over heads of one layer of a recorded sentence.
RolloutMatrix encoder_head_average(const AttentionRecord& record, int layer);
RolloutMatrix cross_head_average(const AttentionRecord& record, int layer);

// Both rollouts of a recorded sentence, from every layer and head: the encoder's over all its
// layers, and the cross rollout from the last decoder layer's head-averaged cross-attention.
struct SentenceRollout {
  RolloutMatrix encoder;  // [S][S]
  RolloutMatrix cross;    // [T][S]
};
SentenceRollout sentence_rollout(const AttentionRecord& record);

}  // namespace minimt
