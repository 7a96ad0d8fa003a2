#include "minimt/engine/quantize.h"

#include <algorithm>
#include <cmath>

namespace minimt {

float quantize_row_int8(const float* v, int count, int8_t* q) {
  float max_abs = 0.0f;
  for (int i = 0; i < count; ++i) max_abs = std::max(max_abs, std::fabs(v[i]));
  if (max_abs == 0.0f) {
    std::fill(q, q + count, int8_t{0});
    return 0.0f;
  }
  // The same two float operations as the activation quantizers in the kernels, so a value
  // quantizes the same way wherever it is quantized.
  const float inverse = 127.0f / max_abs;
  for (int i = 0; i < count; ++i) {
    const float scaled = std::nearbyint(v[i] * inverse);  // half to even (default rounding)
    q[i] = static_cast<int8_t>(std::clamp(scaled, -127.0f, 127.0f));
  }
  return max_abs / 127.0f;
}

void quantize_rows_int8(const float* w, int rows, int cols, int8_t* q, float* scales) {
  for (int r = 0; r < rows; ++r)
    scales[r] = quantize_row_int8(w + static_cast<size_t>(r) * cols, cols,
                                  q + static_cast<size_t>(r) * cols);
}

}  // namespace minimt
