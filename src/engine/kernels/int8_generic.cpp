// The portable int8 kernel: plain loops over the packed panels, int32 sums (exact), then the
// same dequantization as the vector kernels. Runs everywhere; GCC vectorizes the inner loop.
#include <cmath>
#include <cstdint>

#include "engine/kernels/int8_kernels.h"

namespace minimt::kernels {

void int8_linear_generic(const Int8Matrix& weight, const float* bias, const QuantizedRows& x,
                         float* y) {
  constexpr int kPanel = Int8Matrix::kPanel, kGroup = Int8Matrix::kGroup;
  const int n = weight.rows(), groups = weight.groups();
  for (int p = 0; p < weight.panels(); ++p) {
    const int8_t* panel = weight.panel(p);
    for (int r = 0; r < x.m; ++r) {
      const int8_t* q = reinterpret_cast<const int8_t*>(x.data) + static_cast<size_t>(r) * x.stride;
      int32_t sums[kPanel] = {};
      for (int g = 0; g < groups; ++g) {
        const int8_t* w = panel + static_cast<size_t>(g) * kPanel * kGroup;  // [32][4]
        const int8_t* a = q + g * kGroup;
        for (int c = 0; c < kPanel; ++c)
          for (int j = 0; j < kGroup; ++j) sums[c] += a[j] * w[c * kGroup + j];
      }
      for (int c = 0; c < kPanel && p * kPanel + c < n; ++c) {
        const int column = p * kPanel + c;
        const float scale = x.scales[r] * weight.scales()[column];
        y[static_cast<size_t>(r) * n + column] =
            std::fma(static_cast<float>(sums[c]), scale, bias ? bias[column] : 0.0f);
      }
    }
  }
}

}  // namespace minimt::kernels
