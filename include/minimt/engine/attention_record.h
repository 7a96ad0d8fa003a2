// AttentionRecord: the attention weights of one sentence, filled by the encoder and decoder:
// all of them, or (alignment) only one decoder layer's cross attention.
#pragma once

#include <cstddef>
#include <vector>

#include "minimt/engine/architecture.h"

namespace minimt {

struct AttentionRecord {
  int encoder_layers = 0, decoder_layers = 0, heads = 0;
  int source_length = 0;  // S
  // What the passes fill; the rest stays empty. Everything unless set otherwise: an alignment
  // reads only one decoder layer's cross attention (cross_only_layer >= 0), and recording the
  // other layers and kinds would only cost time.
  int cross_only_layer = -1;
  std::vector<float> encoder_self;  // [Le][H][S][S]; empty with cross_only_layer
  // One entry per decoder step t (T in all): the row the step's query produced.
  std::vector<std::vector<float>> decoder_self_steps;  // step t: [Ld][H][t+1]; or none
  std::vector<std::vector<float>> cross_steps;         // step t: [Ld or 1][H][S]

  // An empty record for a sentence of source_length pieces in a model of this architecture,
  // for the passes to fill; cross_only_layer >= 0 keeps only that decoder layer's cross
  // attention.
  static AttentionRecord for_sentence(const Architecture& a, int source_length,
                                      int cross_only_layer = -1) {
    AttentionRecord record;
    record.encoder_layers = a.encoder_layers;
    record.decoder_layers = a.decoder_layers;
    record.heads = a.num_heads;
    record.source_length = source_length;
    record.cross_only_layer = cross_only_layer;
    return record;
  }

  int steps() const { return static_cast<int>(cross_steps.size()); }
  bool keeps_everything() const { return cross_only_layer < 0; }
  // Whether the record keeps layer l's cross attention.
  bool keeps_cross(int layer) const { return cross_only_layer < 0 || layer == cross_only_layer; }
  // Layer l's place among the cross layers kept (l must be kept).
  int cross_slot(int layer) const { return cross_only_layer < 0 ? layer : 0; }

  // Weight that decoder query t gives key j in layer l, head h (0 for j > t: the causal mask).
  float decoder_self(int layer, int head, int t, int j) const {
    if (j > t) return 0.0f;
    return decoder_self_steps[t][(static_cast<size_t>(layer) * heads + head) * (t + 1) + j];
  }
  float cross(int layer, int head, int t, int j) const {
    return cross_steps[t]
                      [(static_cast<size_t>(cross_slot(layer)) * heads + head) * source_length + j];
  }
  float encoder(int layer, int head, int i, int j) const {
    size_t s = source_length;
    return encoder_self[((static_cast<size_t>(layer) * heads + head) * s + i) * s + j];
  }
};

}  // namespace minimt
