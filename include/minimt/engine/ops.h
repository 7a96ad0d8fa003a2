// Numeric building blocks. gemm() is the only caller of OpenBLAS in minimt (blas_runtime.h opens
// it on first use; only the openblas Linear kernel calls gemm()).
#pragma once

#include <cstdint>

#include "minimt/engine/architecture.h"
#include "minimt/engine/weights.h"

namespace minimt::ops {

// C[m, n] = alpha * A[m, k] * op(B) + beta * C, row-major with leading dimensions.
// op(B) = B^T when b_transposed (B stored [n, k], as PyTorch stores Linear weights), else B [k, n].
void gemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          bool b_transposed, float beta, float* c, int ldc);

// Floating-point operations done by gemm() so far in this process (2*m*n*k per call).
uint64_t gemm_flops();

// Off by default. When on, linear() adds the thread CPU time of each product to a counter: the
// products' own rate, for minimt_bench.
void time_linear(bool on);
uint64_t linear_nanoseconds();

// y[rows, out] = x[rows, in] W^T + b.
void linear(const Linear& layer, const float* x, int rows, float* y);

// ys[j][rows, layers[j]->out] = x[rows, in] W_j^T + b_j for j < count: several layers over the
// same input (q, k and v of one attention). In int8 the input is quantized once for all of them,
// in bf16 rounded once; every ys[j] gets the bits linear() would give it.
void linear_many(const Linear* const* layers, int count, const float* x, int rows,
                 float* const* ys);

// In place over rows of width dim: (x - mean) / sqrt(var + eps) * weight + bias.
void layer_norm(const LayerNormWeights& norm, float* x, int rows, int dim, float eps);

// In place over rows of width dim: x / sqrt(mean(x^2) + eps) * weight (T5's norm, no bias).
void rms_norm(const LayerNormWeights& norm, float* x, int rows, int dim, float eps);

// x *= y, element-wise.
void multiply_in_place(float* x, const float* y, int64_t count);

// x *= factor, element-wise.
void scale_in_place(float* x, float factor, int64_t count);

// x += y, element-wise.
void add_in_place(float* x, const float* y, int64_t count);

// In place softmax of one row; exp of -infinity gives exactly 0.
void softmax(float* row, int length);

void activate(Activation activation, float* x, int64_t count);

// Row `position` of the interleaved sinusoidal table: [2i] = sin, [2i+1] = cos of
// position / 10000^(2i/d_model). Adds it to `out` (d_model floats).
void add_sinusoidal_position(int position, int d_model, float* out);
// Rows 0 .. positions-1 of that table into out [positions, d_model] (the same floats).
void sinusoidal_table(int positions, int d_model, float* out);

// Row `position` of fairseq's sinusoidal table (M2M100, NLLB), in float32 as fairseq computes
// it: with h = d_model / 2 and f_i = exp(i * -(ln 10000 / (h - 1))), [i] = sin(position * f_i)
// and [h + i] = cos(position * f_i) for i < h; an odd d_model's last element is 0. Adds it to
// `out` (d_model floats).
void add_sinusoidal_split_position(int position, int d_model, float* out);

// log(sum(exp(row))) computed stably.
float log_sum_exp(const float* row, int length);

// Index of the largest value; the lowest index on a tie.
int argmax(const float* row, int length);

}  // namespace minimt::ops
