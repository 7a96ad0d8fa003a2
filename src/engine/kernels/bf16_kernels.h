// The bf16 kernel behind bf16_linear(): AVX512_BF16 only (see bf16_gemm.h). Built only on x86-64.
#pragma once

#include "minimt/engine/bf16_gemm.h"

namespace minimt::kernels {

#if defined(__x86_64__)
// ys[j] = x W_j^T + biases[j] for j < count, x rounded to bf16 once (every weight has the same k).
void bf16_linear_avx512(const Bf16Matrix* const* weights, const float* const* biases, int count,
                        const float* x, int m, int ldx, float* const* ys);
#endif

}  // namespace minimt::kernels
