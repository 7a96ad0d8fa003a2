// Symmetric int8 quantization, the one definition minimt uses for weights (at load and in
// `minimt convert`) and for activations (per row, at every product).
//   scale = max|v| / 127,  q = round-half-even(v * (127 / max|v|)) in [-127, 127],  v ~ q * scale
// A row of zeros gets scale 0 and q = 0.
#pragma once

#include <cstdint>

namespace minimt {

// Quantizes each row of w [rows, cols] on its own: q [rows, cols] and scales [rows].
void quantize_rows_int8(const float* w, int rows, int cols, int8_t* q, float* scales);

// One row: returns its scale.
float quantize_row_int8(const float* v, int count, int8_t* q);

}  // namespace minimt
