// The packed-panel kernels behind packed_linear(), one per instruction set. Each computes
// y[m, n] = x[m, k] W^T + bias over the panels of `weight` in the summation order described in
// minimt/packed_gemm.h. The x86 ones are built only on x86-64 (see CMakeLists.txt).
#pragma once

#include "minimt/engine/packed_gemm.h"

namespace minimt::kernels {

void packed_linear_generic(const PackedMatrix& weight, const float* bias, const float* x, int m,
                           int ldx, float* y);
#if defined(__x86_64__)
void packed_linear_avx2(const PackedMatrix& weight, const float* bias, const float* x, int m,
                        int ldx, float* y);
void packed_linear_avx512(const PackedMatrix& weight, const float* bias, const float* x, int m,
                          int ldx, float* y);
#endif

}  // namespace minimt::kernels
