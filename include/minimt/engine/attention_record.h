// AttentionRecord: every attention weight of one sentence, filled by the encoder and decoder.
#pragma once

#include <cstddef>
#include <vector>

namespace minimt {

struct AttentionRecord {
  int encoder_layers = 0, decoder_layers = 0, heads = 0;
  int source_length = 0;            // S
  std::vector<float> encoder_self;  // [Le][H][S][S]
  // One entry per decoder step t (T in all): the row the step's query produced.
  std::vector<std::vector<float>> decoder_self_steps;  // step t: [Ld][H][t+1]
  std::vector<std::vector<float>> cross_steps;         // step t: [Ld][H][S]

  int steps() const { return static_cast<int>(cross_steps.size()); }

  // Weight that decoder query t gives key j in layer l, head h (0 for j > t: the causal mask).
  float decoder_self(int layer, int head, int t, int j) const {
    if (j > t) return 0.0f;
    return decoder_self_steps[t][(static_cast<size_t>(layer) * heads + head) * (t + 1) + j];
  }
  float cross(int layer, int head, int t, int j) const {
    return cross_steps[t][(static_cast<size_t>(layer) * heads + head) * source_length + j];
  }
  float encoder(int layer, int head, int i, int j) const {
    size_t s = source_length;
    return encoder_self[((static_cast<size_t>(layer) * heads + head) * s + i) * s + j];
  }
};

}  // namespace minimt
