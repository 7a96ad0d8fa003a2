// The int8 kernels behind int8_linear(), one per instruction set. Each takes activations
// already quantized per row (int8_gemm.cpp does that) and writes
//   y[r][c] = fma(float(sum_i qx[r][i] * qw[c][i]), sx[r] * sw[c], bias[c]).
// The x86 ones are built only on x86-64.
#pragma once

#include <cstdint>

#include "minimt/engine/int8_gemm.h"

namespace minimt::kernels {

// Activations of one call, quantized: rows of `stride` bytes (k padded to whole groups with
// zeros), as signed int8, or for VNNI as unsigned (q + 128, since vpdpbusd multiplies unsigned
// by signed bytes; the kernel subtracts 128 * sum_i qw[c][i] again).
struct QuantizedRows {
  const uint8_t* data;
  const float* scales;  // [m]: sx
  int m, stride;
};

void int8_linear_generic(const Int8Matrix& weight, const float* bias, const QuantizedRows& x,
                         float* y);
#if defined(__x86_64__)
void int8_linear_avx2(const Int8Matrix& weight, const float* bias, const QuantizedRows& x,
                      float* y);
void int8_linear_vnni(const Int8Matrix& weight, const float* bias, const QuantizedRows& x,
                      float* y);
// Quantizes row x[0..k) into q (signed, or unsigned q + 128 when `offset`), padding to `stride`
// with the value of 0; returns the scale. Bit-identical to quantize_row_int8.
float quantize_row_avx512(const float* x, int k, int stride, bool offset, uint8_t* q);
#endif

}  // namespace minimt::kernels
