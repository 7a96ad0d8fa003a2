// A probe: an observer the encoder and decoder show named points of their forward pass, as
// llama.cpp's cb(cur, "kq_soft_max", il). Each sentence has its own probe, or none; with none,
// the forward pass makes and shows nothing for it.
#pragma once

#include "minimt/engine/head_mask.h"

namespace minimt {

enum class ProbePoint {
  kInput,        // [rows, d_model]: the embedded positions first .. first+rows-1 (layer -1)
  kQueries,      // [rows, H*dk]: the query rows, bias included
  kKeys,         // [rows, H*dk]: keys first .. first+rows-1, each shown once (the first read)
  kValues,       // [rows, H*dk]: their values
  kScores,       // [H][rows][keys]: the softmax's input, defined where the causal mask keeps it
  kWeights,      // [H][rows][keys]: the attention weights (a masked head's are 0)
  kHeadOutputs,  // [rows, H*dk]: the weights times the values, head h in its columns, before W_O
  kLayerOutput,  // [rows, d_model]: the layer's output
};

// One point of one sentence. kind: which attention; for kInput and kLayerOutput, the stack
// (kEncoder or kDecoder). first: the position of the first row (kKeys, kValues: of the first
// key). keys: for kScores and kWeights the row length, query i seeing keys j < keys - rows + i
// + 1 when causal (all when not); for the decoder's kInput, the source length.
struct ProbeView {
  ProbePoint point = ProbePoint::kInput;
  AttentionKind kind = AttentionKind::kEncoder;
  int layer = -1;
  int first = 0, rows = 0, keys = 0;
  bool causal = false;
  const float* data = nullptr;  // valid during the call only
};

class Probe {
 public:
  virtual ~Probe() = default;
  // Whether to show this point (kScores and kWeights are made only when wanted).
  virtual bool wants(ProbePoint point, AttentionKind kind, int layer) const = 0;
  // Called only when wanted, in the order of the forward pass.
  virtual void see(const ProbeView& view) = 0;
};

// Shows the view to the probe when there is one and it wants it.
inline void show(Probe* probe, const ProbeView& view) {
  if (probe && probe->wants(view.point, view.kind, view.layer)) probe->see(view);
}

}  // namespace minimt
