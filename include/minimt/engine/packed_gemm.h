// Linear layers with pre-packed weights. OpenBLAS packs the weight matrix again on every sgemm
// call; at decoder batch sizes (a few to a few dozen rows) that packing costs as much as the
// product itself. minimt packs each Linear weight once, at load, into column panels and runs
// its own kernel over them: AVX-512, AVX2+FMA, or portable C++, whichever the CPU has.
//
// Every kernel sums each output in the same order: the even k into one accumulator and the odd
// k into another (each a chain of fused multiply-adds), then (even + odd) + bias. So a row's
// result does not depend on how many rows share the call (a sentence's result does not depend
// on its batch), and the three kernels give bit-identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "minimt/engine/kernel_registry.h"

namespace minimt {

// Uninitialised float storage for packed weights, in one block so that the kernel can back it
// with huge pages: a few page faults at load instead of thousands.
class PackedArena {
 public:
  explicit PackedArena(size_t floats);
  ~PackedArena();
  PackedArena(const PackedArena&) = delete;
  PackedArena& operator=(const PackedArena&) = delete;
  float* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  float* data_ = nullptr;
  size_t bytes_ = 0;
};

// A Linear weight [n, k] as its file stores it, so that packing reads it straight from the
// mapping with no float32 copy in between: float32, IEEE half, bfloat16, or int8 with one scale
// per row (w = q * scale, in float: the same values as dequantizing first).
struct WeightSource {
  enum class Format { kF32, kF16, kBf16, kI8 };
  Format format = Format::kF32;
  const void* data = nullptr;    // n * k values of that format, little-endian, row-major
  const float* scale = nullptr;  // [n], kI8 only
};

class PackedMatrix {
 public:
  static constexpr int kPanel = 32;  // output columns per panel: two AVX-512 or four AVX2 vectors

  // Floats that packing an [n, k] weight takes (n rounded up to whole panels).
  static size_t floats_needed(int n, int k) {
    return static_cast<size_t>((n + kPanel - 1) / kPanel) * kPanel * k;
  }

  // Packs W [n, k] (row-major, a PyTorch Linear weight) into panels [n/32][k][32] at storage,
  // which must hold floats_needed(n, k) and outlive this matrix. `kernel` (not kOpenblas) is
  // the one packed_linear() will run.
  PackedMatrix(const float* weight, int n, int k, float* storage, LinearKernel kernel);
  // The same from a weight as stored in a file: each panel's rows are widened into a small
  // buffer, then packed, so the source is read once, in order.
  PackedMatrix(const WeightSource& weight, int n, int k, float* storage, LinearKernel kernel);
  int rows() const { return n_; }  // n: outputs
  int cols() const { return k_; }  // k: inputs
  LinearKernel kernel() const { return kernel_; }
  const float* panel(int p) const { return data_ + static_cast<size_t>(p) * k_ * kPanel; }
  int panels() const { return (n_ + kPanel - 1) / kPanel; }
  size_t bytes() const { return floats_needed(n_, k_) * sizeof(float); }

 private:
  int n_, k_;
  float* data_;
  LinearKernel kernel_;
};

// Rows [first_row, first_row + rows) of a stored [n, k] weight, as floats, into out.
void widen_weight_rows(const WeightSource& source, int first_row, int rows, int k, float* out);

// y[m, n] = x[m, k] W^T + bias (bias may be null). x rows are ldx apart, y rows n apart.
void packed_linear(const PackedMatrix& weight, const float* bias, const float* x, int m, int ldx,
                   float* y);

}  // namespace minimt
