// The model's Linear weights in float32 for the backward pass, which needs both products:
// y = x W^T forward and dx = dy W backward. On minimt's kernels (packed_gemm.h) a layer keeps the
// engine's packed W where it has one and gets W^T packed once, beside it, so that neither product
// packs anything per call; a layer the engine computes with OpenBLAS (MINIMT_KERNELS=openblas) is
// used in place through ops::gemm. A layer held only as int8 or bfloat16 (int8 or bf16 compute)
// is rebuilt from those values (the dequantized weights), then packed both ways.
#pragma once

#include <memory>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/weights.h"

namespace minimt::backward {

struct DenseLinear {
  const float* weight = nullptr;  // [out, in], when the products go through ops::gemm
  const float* bias = nullptr;    // [out] or null
  int out = 0, in = 0;
  const PackedMatrix* packed = nullptr;      // W [out, in], for x W^T
  const PackedMatrix* transposed = nullptr;  // W^T [in, out], for dy W
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
  const PackedMatrix* pack(const float* weight, int n, int k, LinearKernel kernel);
  const Architecture& config_;
  const ModelWeights& weights_;
  std::vector<std::unique_ptr<float[]>> owned_;  // the packed copies' storage
  std::vector<std::unique_ptr<PackedMatrix>> packed_;
  std::vector<DenseLayer> encoder_, decoder_;
  DenseLinear output_;
};

// y[rows, out] = x[rows, in] W^T + b.
void dense_forward(const DenseLinear& layer, const float* x, int64_t rows, float* y);
// dx[rows, in] = dy[rows, out] W, or dx += that with accumulate (`sum` holds the product then).
void dense_backward(const DenseLinear& layer, const float* dy, int64_t rows, float* dx,
                    bool accumulate, std::vector<float>& sum);

}  // namespace minimt::backward
