// The encoder stack: runs once per sentence over the whole source.
#pragma once

#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/head_mask.h"
#include "minimt/engine/layers.h"
#include "minimt/engine/probe.h"
#include "minimt/engine/probed_attention.h"
#include "minimt/engine/weights.h"

namespace minimt {

// The encoder outputs of a batch, the sentences' rows concatenated (no padding):
// sentence b owns rows offsets[b] .. offsets[b+1]-1 of states [N, d_model].
struct EncodedBatch {
  std::vector<float> states;
  std::vector<int> offsets;
  int sentences() const { return static_cast<int>(offsets.size()) - 1; }
  int length(int b) const { return offsets[b + 1] - offsets[b]; }
};

class Encoder {
 public:
  Encoder(const Architecture& config, const ModelWeights& weights)
      : config_(config), weights_(weights) {}

  // Heads to switch off from now on (not owned; nullptr: none).
  void set_head_mask(const HeadMask* mask) { attention_.set_head_mask(mask); }

  // sources[b]: token ids incl. eos. probes[b], if given and not null, is shown sentence b's
  // input, self-attention and layer outputs (probe.h).
  EncodedBatch forward(const std::vector<std::vector<int>>& sources,
                       const std::vector<Probe*>& probes = {});

 private:
  const Architecture& config_;
  const ModelWeights& weights_;
  LayerScratch scratch_;
  ProbedAttention attention_;
  std::vector<float> bias_table_;  // T5's relative-position bias by distance, per forward
};

}  // namespace minimt
