// The bf16 kernel behind bf16_linear(): AVX512_BF16 only (see bf16_gemm.h). Built only on x86-64.
#pragma once

#include "minimt/engine/bf16_gemm.h"

namespace minimt::kernels {

#if defined(__x86_64__)
void bf16_linear_avx512(const Bf16Matrix& weight, const float* bias, const float* x, int m, int ldx,
                        float* y);
#endif

}  // namespace minimt::kernels
