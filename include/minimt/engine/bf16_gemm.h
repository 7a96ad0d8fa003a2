// Linear layers in bfloat16: weights rounded to bf16 at load, activations at every product,
// pairs of products summed into float lanes by vdpbf16ps (AVX512_BF16). Only CPUs with that
// instruction run it: without it, bf16 would be slower than float32, not faster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "minimt/base/half_float.h"

namespace minimt {

// The bfloat16 codec itself (float_to_bf16, bf16_to_float) is in minimt/base/half_float.h.

class Bf16Matrix {
 public:
  static constexpr int kPanel = 32;  // output columns per panel
  // Bytes that packing an [n, k] weight takes: panels [n/32][k/2][32][2] of bf16.
  static size_t bytes_needed(int n, int k);

  // Rounds W [n, k] (float, row-major) to bf16 and packs it at storage (bytes_needed bytes).
  // Throws Error where the CPU lacks AVX512_BF16.
  Bf16Matrix(const float* weight, int n, int k, uint8_t* storage);
  // The same with row c of W written into a k-float buffer by rows(c, buffer).
  Bf16Matrix(const std::function<void(int, float*)>& rows, int n, int k, uint8_t* storage);
  int rows() const { return n_; }
  int cols() const { return k_; }
  int pairs() const { return (k_ + 1) / 2; }
  int panels() const { return (n_ + kPanel - 1) / kPanel; }
  // Panel p: pairs() blocks of [32 columns][2 inputs], 128 bytes each.
  const uint16_t* panel(int p) const { return data_ + static_cast<size_t>(p) * pairs() * 64; }
  size_t bytes() const { return bytes_needed(n_, k_); }

 private:
  int n_, k_;
  uint16_t* data_;
};

// y[m, n] = x[m, k] W^T + bias (bias may be null). x rows are ldx apart, y rows n apart.
void bf16_linear(const Bf16Matrix& weight, const float* bias, const float* x, int m, int ldx,
                 float* y);

// ys[j][m, n_j] = x[m, k] W_j^T + biases[j] for j < count: several products of the same x (q, k
// and v of one input), which is rounded to bf16 once for all of them. Every weight has the same
// k; each ys[j] gets the bits bf16_linear would give it.
void bf16_linear_many(const Bf16Matrix* const* weights, const float* const* biases, int count,
                      const float* x, int m, int ldx, float* const* ys);

}  // namespace minimt
