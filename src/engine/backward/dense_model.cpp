#include "engine/backward/dense_model.h"

#include <algorithm>

#include "minimt/base/error.h"
#include "minimt/base/half_float.h"
#include "minimt/engine/backward_ops.h"
#include "minimt/engine/bf16_gemm.h"
#include "minimt/engine/int8_gemm.h"
#include "minimt/engine/kernel_registry.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/packed_gemm.h"

namespace minimt::backward {
namespace {

// W [n, k] out of the packed panels [n/32][k][32] (packed_gemm.h).
void unpack_float(const PackedMatrix& m, float* w) {
  const int n = m.rows(), k = m.cols(), panel = PackedMatrix::kPanel;
  for (int c = 0; c < n; ++c) {
    const float* p = m.panel(c / panel);
    for (int i = 0; i < k; ++i) w[static_cast<size_t>(c) * k + i] = p[i * panel + c % panel];
  }
}

// W [n, k] = q * scale, q out of the panels [n/32][k/4][32][4] (int8_gemm.h).
void unpack_int8(const Int8Matrix& m, float* w) {
  const int n = m.rows(), k = m.cols(), panel = Int8Matrix::kPanel, group = Int8Matrix::kGroup;
  for (int c = 0; c < n; ++c) {
    const int8_t* p = m.panel(c / panel);
    const float scale = m.scales()[c];
    for (int i = 0; i < k; ++i)
      w[static_cast<size_t>(c) * k + i] =
          static_cast<float>(p[(i / group) * panel * group + (c % panel) * group + i % group]) *
          scale;
  }
}

// W [n, k] out of the bfloat16 panels [n/32][k/2][32][2] (bf16_gemm.h).
void unpack_bf16(const Bf16Matrix& m, float* w) {
  const int n = m.rows(), k = m.cols(), panel = Bf16Matrix::kPanel;
  for (int c = 0; c < n; ++c) {
    const uint16_t* p = m.panel(c / panel);
    for (int i = 0; i < k; ++i)
      w[static_cast<size_t>(c) * k + i] =
          bf16_to_float(p[(i / 2) * panel * 2 + (c % panel) * 2 + i % 2]);
  }
}

}  // namespace

const PackedMatrix* DenseModel::pack(const float* weight, int n, int k, LinearKernel kernel) {
  owned_.emplace_back(new float[PackedMatrix::floats_needed(n, k)]);
  packed_.push_back(std::make_unique<PackedMatrix>(weight, n, k, owned_.back().get(), kernel));
  return packed_.back().get();
}

DenseLinear DenseModel::dense(const Linear& layer) {
  DenseLinear d{layer.weight, layer.bias, layer.out, layer.in};
  if (layer.out == 0 || (layer.weight && !layer.packed)) return d;  // OpenBLAS: W as it is
  const size_t count = static_cast<size_t>(layer.out) * layer.in;
  std::vector<float> w(layer.weight ? 0 : count);
  if (layer.weight) {
    // the engine's float32 weight, packed by it too
  } else if (layer.packed) {
    unpack_float(*layer.packed, w.data());
  } else if (layer.weight_int8) {
    for (size_t c = 0; c < static_cast<size_t>(layer.out); ++c)
      for (size_t i = 0; i < static_cast<size_t>(layer.in); ++i)
        w[c * layer.in + i] =
            static_cast<float>(layer.weight_int8[c * layer.in + i]) * layer.weight_scale[c];
  } else if (layer.int8) {
    unpack_int8(*layer.int8, w.data());
  } else if (layer.bf16) {
    unpack_bf16(*layer.bf16, w.data());
  } else {
    throw Error("a Linear layer has no weights to differentiate");
  }
  const float* weight = layer.weight ? layer.weight : w.data();
  const LinearKernel kernel = layer.packed ? layer.packed->kernel() : best_linear_kernel();
  d.weight = nullptr;
  d.packed = layer.packed ? layer.packed : pack(weight, layer.out, layer.in, kernel);
  std::vector<float> transposed(count);
  for (int c = 0; c < layer.out; ++c)
    for (int i = 0; i < layer.in; ++i)
      transposed[static_cast<size_t>(i) * layer.out + c] =
          weight[static_cast<size_t>(c) * layer.in + i];
  d.transposed = pack(transposed.data(), layer.in, layer.out, kernel);
  return d;
}

DenseModel::DenseModel(const Architecture& config, const ModelWeights& weights)
    : config_(config), weights_(weights) {
  const auto attention = [&](const AttentionWeights& a) {
    return DenseAttention{dense(a.q), dense(a.k), dense(a.v), dense(a.out)};
  };
  // What an encoder and a decoder layer share; a decoder layer adds its cross-attention.
  const auto layer = [&](const auto& l) {
    DenseLayer d;
    d.self_attn = attention(l.self_attn);
    d.self_attn_norm = l.self_attn_norm;
    d.final_norm = l.final_norm;
    d.fc1 = dense(l.fc1);
    d.fc1_linear = dense(l.fc1_linear);
    d.fc2 = dense(l.fc2);
    return d;
  };
  for (const EncoderLayerWeights& l : weights.encoder_layers) encoder_.push_back(layer(l));
  for (const DecoderLayerWeights& l : weights.decoder_layers) {
    DenseLayer d = layer(l);
    d.cross_attn = attention(l.cross_attn);
    d.cross_attn_norm = l.cross_attn_norm;
    decoder_.push_back(d);
  }
  output_ = dense(weights.output);
}

void dense_forward(const DenseLinear& layer, const float* x, int64_t rows, float* y) {
  if (layer.packed) {
    if (rows > 0) packed_linear(*layer.packed, layer.bias, x, static_cast<int>(rows), layer.in, y);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float* out = y + r * layer.out;
    if (layer.bias)
      std::copy(layer.bias, layer.bias + layer.out, out);
    else
      std::fill(out, out + layer.out, 0.0f);
  }
  if (rows == 0) return;
  ops::gemm(static_cast<int>(rows), layer.out, layer.in, 1.0f, x, layer.in, layer.weight, layer.in,
            true, 1.0f, y, layer.out);
}

void dense_backward(const DenseLinear& layer, const float* dy, int64_t rows, float* dx,
                    bool accumulate, std::vector<float>& sum) {
  if (!layer.transposed) {
    linear(layer.weight, layer.out, layer.in, dy, rows, dx, accumulate);
    return;
  }
  if (rows == 0) return;
  const size_t count = static_cast<size_t>(rows) * layer.in;
  if (sum.size() < count && accumulate) sum.resize(count);
  float* out = accumulate ? sum.data() : dx;
  packed_linear(*layer.transposed, nullptr, dy, static_cast<int>(rows), layer.out, out);
  if (accumulate) ops::add_in_place(dx, out, static_cast<int64_t>(count));
}

}  // namespace minimt::backward
