// Linear layers with pre-packed weights. OpenBLAS packs the weight matrix again on every sgemm
// call; at decoder batch sizes (a few to a few dozen rows) that packing costs as much as the
// product itself. minimt packs each Linear weight once, at load, into column panels and runs
// its own AVX-512 kernel over them; each output element is summed in the same order whatever
// the number of rows, so a sentence's result does not depend on its batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

class PackedMatrix {
 public:
  static constexpr int kPanel = 32;  // output columns per panel: two 16-float vectors

  // Floats that packing an [n, k] weight takes (n rounded up to whole panels).
  static size_t floats_needed(int n, int k) {
    return static_cast<size_t>((n + kPanel - 1) / kPanel) * kPanel * k;
  }

  // Packs W [n, k] (row-major, a PyTorch Linear weight) into panels [n/32][k][32] at storage,
  // which must hold floats_needed(n, k) and outlive this matrix.
  PackedMatrix(const float* weight, int n, int k, float* storage);
  int rows() const { return n_; }  // n: outputs
  int cols() const { return k_; }  // k: inputs
  const float* panel(int p) const { return data_ + static_cast<size_t>(p) * k_ * kPanel; }
  int panels() const { return (n_ + kPanel - 1) / kPanel; }
  size_t bytes() const { return floats_needed(n_, k_) * sizeof(float); }

 private:
  int n_, k_;
  float* data_;
};

// True when this CPU runs the packed kernel (AVX-512F); otherwise minimt uses OpenBLAS.
bool packed_kernels_available();

// y[m, n] = x[m, k] W^T + bias (bias may be null). x rows are ldx apart, y rows n apart.
void packed_linear(const PackedMatrix& weight, const float* bias, const float* x, int m, int ldx,
                   float* y);

}  // namespace minimt
