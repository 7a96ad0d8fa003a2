// The model's Linear weights as plain float32 [out, in] matrices, which the backward pass needs
// (dx = dy W reads W untransposed; the packed, int8 and bf16 copies only compute x W^T). A layer
// whose float32 weight is still in memory is used in place; any other is rebuilt once from its
// packed copy (exact), its int8 values times their scales (the dequantized weights), or its
// bfloat16 values.
#pragma once

#include <memory>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/weights.h"

namespace minimt::backward {

struct DenseLinear {
  const float* weight = nullptr;  // [out, in]
  const float* bias = nullptr;    // [out] or null
  int out = 0, in = 0;
};

struct DenseAttention {
  DenseLinear q, k, v, out;
};

struct DenseLayer {  // an encoder layer (no cross) or a decoder layer
  DenseAttention self_attn, cross_attn;
  LayerNormWeights self_attn_norm, cross_attn_norm, final_norm;
  DenseLinear fc1, fc1_linear, fc2;
};

class DenseModel {
 public:
  DenseModel(const Architecture& config, const ModelWeights& weights);
  const Architecture& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const std::vector<DenseLayer>& encoder() const { return encoder_; }
  const std::vector<DenseLayer>& decoder() const { return decoder_; }
  const DenseLinear& output() const { return output_; }

 private:
  DenseLinear dense(const Linear& layer);
  const Architecture& config_;
  const ModelWeights& weights_;
  std::vector<std::unique_ptr<float[]>> owned_;  // the rebuilt weights
  std::vector<DenseLayer> encoder_, decoder_;
  DenseLinear output_;
};

// y[rows, out] = x[rows, in] W^T + b, in float32 through ops::gemm.
void dense_forward(const DenseLinear& layer, const float* x, int64_t rows, float* y);

}  // namespace minimt::backward
