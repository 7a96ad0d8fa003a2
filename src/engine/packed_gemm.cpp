#include "minimt/engine/packed_gemm.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "engine/kernels/kernel_table.h"
#include "minimt/base/error.h"
#include "minimt/base/half_float.h"

namespace minimt {

PackedArena::PackedArena(size_t floats) {
  constexpr size_t kHugePage = 2u << 20;
  bytes_ = (floats * sizeof(float) + kHugePage - 1) / kHugePage * kHugePage;
  if (bytes_ == 0) return;
  data_ = static_cast<float*>(std::aligned_alloc(kHugePage, bytes_));
  if (!data_) throw std::bad_alloc();
  madvise(data_, bytes_, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
}

PackedArena::~PackedArena() {
  std::free(data_);
}

namespace {

// `count` values of `source` starting at value `first` (row `row` for kI8) as floats.
void widen(const WeightSource& source, size_t first, size_t count, int row, int k, float* out) {
  const auto* bytes = static_cast<const uint8_t*>(source.data);
  switch (source.format) {
    case WeightSource::Format::kF32:
      std::memcpy(out, bytes + first * 4, count * sizeof(float));
      return;
    case WeightSource::Format::kF16:
      return widen_halves(bytes + first * 2, count, out);
    case WeightSource::Format::kBf16:
      return widen_bf16(bytes + first * 2, count, out);
    case WeightSource::Format::kI8:
      for (size_t i = 0; i < count; ++i) {
        const float scale = source.scale[row + static_cast<int>(i / static_cast<size_t>(k))];
        out[i] = static_cast<float>(static_cast<int8_t>(bytes[first + i])) * scale;
      }
      return;
  }
}

}  // namespace

void widen_weight_rows(const WeightSource& source, int first_row, int rows, int k, float* out) {
  widen(source, static_cast<size_t>(first_row) * k, static_cast<size_t>(rows) * k, first_row, k,
        out);
}

PackedMatrix::PackedMatrix(const float* weight, int n, int k, float* storage, LinearKernel kernel)
    : PackedMatrix(WeightSource{WeightSource::Format::kF32, weight, nullptr}, n, k, storage,
                   kernel) {}

PackedMatrix::PackedMatrix(const WeightSource& weight, int n, int k, float* storage,
                           LinearKernel kernel)
    : n_(n), k_(k), data_(storage), kernel_(kernel) {
  if (kernel == LinearKernel::kOpenblas || !linear_kernel_supported(kernel))
    throw Error("cannot pack weights for the " + to_string(kernel) + " kernel on this CPU");
  std::vector<float> rows;  // one panel's rows as floats, unless the source is float32
  // Reads 32 rows side by side and writes in order (a transpose, in 8 x 8 blocks where AVX2 runs).
  const kernels::PackPanel pack = kernels::pack_panel_function();
  for (int p = 0; p < panels(); ++p) {
    float* out = data_ + static_cast<size_t>(p) * k * kPanel;  // [k][32]
    const int columns = std::min(kPanel, n - p * kPanel);
    const size_t first = static_cast<size_t>(p) * kPanel * k;
    if (weight.format == WeightSource::Format::kF32) {
      pack(static_cast<const float*>(weight.data) + first, columns, k, out);
      continue;
    }
    rows.resize(static_cast<size_t>(columns) * k);
    widen(weight, first, rows.size(), p * kPanel, k, rows.data());
    pack(rows.data(), columns, k, out);
  }
}

void packed_linear(const PackedMatrix& weight, const float* bias, const float* x, int m, int ldx,
                   float* y) {
  kernels::packed_linear_function(weight.kernel())(weight, bias, x, m, ldx, y);
}

}  // namespace minimt
