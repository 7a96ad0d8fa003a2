// Linear layers in int8: weights quantized per output channel (once, at load), activations per
// row (at every product), products summed exactly in int32 and turned back into float with the
// two scales:
//   y[r][c] = fma(float(sum_i qx[r][i] * qw[c][i]), sx[r] * sw[c], bias[c])
// The integer sums are exact, so every int8 kernel (VNNI, AVX2, portable) gives the same bits,
// and a row's result does not depend on the other rows of the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "minimt/engine/compute_type.h"

namespace minimt {

class Int8Matrix {
 public:
  static constexpr int kPanel = 32;  // output columns per panel
  static constexpr int kGroup = 4;   // inputs per 32-bit lane (vpdpbusd sums 4 byte products)

  // Bytes that packing an [n, k] weight takes: panels [n/32][k/4][32][4] of int8, then the
  // per-column scales (float) and sums of the quantized weights (int32).
  static size_t bytes_needed(int n, int k);

  // Quantizes W [n, k] (float, row-major) per row with quantize_rows_int8 and packs it.
  static Int8Matrix from_float(const float* weight, int n, int k, uint8_t* storage,
                               Int8Kernel kernel);
  // The same with row c of W written into a k-float buffer by rows(c, buffer): a weight stored
  // in another format is widened one row at a time, never as a whole.
  static Int8Matrix from_rows(const std::function<void(int, float*)>& rows, int n, int k,
                              uint8_t* storage, Int8Kernel kernel);
  // Packs an already quantized W [n, k] with its per-row scales (an int8 model file).
  static Int8Matrix from_int8(const int8_t* weight, const float* scales, int n, int k,
                              uint8_t* storage, Int8Kernel kernel);

  int rows() const { return n_; }  // n: outputs
  int cols() const { return k_; }  // k: inputs
  int groups() const { return (k_ + kGroup - 1) / kGroup; }
  int panels() const { return (n_ + kPanel - 1) / kPanel; }
  Int8Kernel kernel() const { return kernel_; }
  // Panel p: groups() blocks of [32 columns][4 inputs], 128 bytes each.
  const int8_t* panel(int p) const {
    return reinterpret_cast<const int8_t*>(data_) + static_cast<size_t>(p) * groups() * 128;
  }
  const float* scales() const { return scales_; }  // [panels * 32], 0 past n
  const int32_t* sums() const { return sums_; }    // [panels * 32]: sum_i qw[c][i]
  size_t bytes() const { return bytes_needed(n_, k_); }

 private:
  Int8Matrix(int n, int k, uint8_t* storage, Int8Kernel kernel);
  void pack_row(int column, const int8_t* quantized, float scale);
  int n_, k_;
  uint8_t* data_;
  float* scales_;
  int32_t* sums_;
  Int8Kernel kernel_;
};

// y[m, n] = x[m, k] W^T + bias (bias may be null). x rows are ldx apart, y rows n apart.
void int8_linear(const Int8Matrix& weight, const float* bias, const float* x, int m, int ldx,
                 float* y);

// ys[j][m, n_j] = x[m, k] W_j^T + biases[j] for j < count: several products of the same x (q, k
// and v of one input), which is quantized once for all of them. Every weight has the same k and
// kernel; each ys[j] gets the bits int8_linear would give it.
void int8_linear_many(const Int8Matrix* const* weights, const float* const* biases, int count,
                      const float* x, int m, int ldx, float* const* ys);

}  // namespace minimt
