// The packed-panel kernels behind packed_linear(), one per instruction set. Each computes
// y[m, n] = x[m, k] W^T + bias over the panels of `weight` in the summation order described in
// minimt/engine/packed_gemm.h. The x86 ones are built only on x86-64 (see CMakeLists.txt).
#pragma once

#include "minimt/engine/packed_gemm.h"

namespace minimt::kernels {

// Packs rows [columns, k] (row-major) into one panel at out ([k][32]), zeros past `columns`.
void pack_panel_generic(const float* rows, int columns, int k, float* out);
#if defined(__x86_64__)
void pack_panel_avx2(const float* rows, int columns, int k, float* out);
#endif

void packed_linear_generic(const PackedMatrix& weight, const float* bias, const float* x, int m,
                           int ldx, float* y);
#if defined(__x86_64__)
void packed_linear_avx2(const PackedMatrix& weight, const float* bias, const float* x, int m,
                        int ldx, float* y);
void packed_linear_avx512(const PackedMatrix& weight, const float* bias, const float* x, int m,
                          int ldx, float* y);
#endif

}  // namespace minimt::kernels
