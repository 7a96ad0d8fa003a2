// multi_head_attention for the encoder and decoder, one sentence and layer at a time, with the
// head mask applied and what the sentence's probe wants of the call shown to it.
#pragma once

#include <vector>

#include "minimt/engine/attention.h"
#include "minimt/engine/head_mask.h"
#include "minimt/engine/probe.h"

namespace minimt {

// Where a call sits: its attention and layer, the position of its first query, and how many
// keys it reads for the first time (the last new_keys rows of k and v; the probe sees each key
// once: a decoder step's own, the encoder output's at the first position).
struct AttentionSite {
  AttentionKind kind = AttentionKind::kEncoder;
  int layer = 0;
  int first = 0;
  int new_keys = 0;
};

class ProbedAttention {
 public:
  void set_head_mask(const HeadMask* mask) { head_mask_ = mask; }

  // context [tq, H*dk] of the call; with a probe, the call's queries, new keys and values,
  // scores, weights and head outputs as it wants them.
  void run(Probe* probe, const AttentionSite& site, const AttentionInputs& in,
           const ScoreOptions& options, float* context);

 private:
  const HeadMask* head_mask_ = nullptr;
  std::vector<float> scratch_;
  std::vector<float> weights_, scores_;  // [H][tq][tk] each, when a probe wants them
};

}  // namespace minimt
