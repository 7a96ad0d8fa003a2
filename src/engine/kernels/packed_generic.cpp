// The portable packed kernel: plain C++ in the summation order every packed kernel shares, so
// it gives the AVX ones' results bit for bit (std::fma rounds once, like a vector FMA). The
// compiler vectorises the 32-column inner loops where the target has vector FMA (aarch64 does).
#include <algorithm>
#include <cmath>

#include "engine/kernels/fma_clones.h"
#include "engine/kernels/packed_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = PackedMatrix::kPanel;

// One row of x against one panel: even k into `even`, odd k into `odd`, then (even + odd) + b.
// Inlined into each copy of packed_linear_generic (fma_clones.h).
inline __attribute__((always_inline)) void panel_row(const float* panel, int k, const float* row,
                                                     const float* bias, int valid, float* out) {
  float even[kPanel] = {}, odd[kPanel] = {};
  int i = 0;
  for (; i + 1 < k; i += 2) {
    const float* w = panel + static_cast<size_t>(i) * kPanel;
    const float a0 = row[i], a1 = row[i + 1];
    for (int j = 0; j < kPanel; ++j) even[j] = std::fma(a0, w[j], even[j]);
    for (int j = 0; j < kPanel; ++j) odd[j] = std::fma(a1, w[kPanel + j], odd[j]);
  }
  if (i < k) {  // odd k: the last one goes to the even accumulators
    const float* w = panel + static_cast<size_t>(i) * kPanel;
    for (int j = 0; j < kPanel; ++j) even[j] = std::fma(row[i], w[j], even[j]);
  }
  for (int j = 0; j < valid; ++j) out[j] = (even[j] + odd[j]) + (bias ? bias[j] : 0.0f);
}

}  // namespace

MINIMT_FMA_CLONES void packed_linear_generic(const PackedMatrix& weight, const float* bias,
                                             const float* x, int m, int ldx, float* y) {
  const int n = weight.rows(), k = weight.cols();
  for (int p = 0; p < weight.panels(); ++p) {
    const int column = p * kPanel;
    const int valid = std::min(kPanel, n - column);
    for (int r = 0; r < m; ++r)
      panel_row(weight.panel(p), k, x + static_cast<size_t>(r) * ldx,
                bias ? bias + column : nullptr, valid, y + static_cast<size_t>(r) * n + column);
  }
}

}  // namespace minimt::kernels
