// The derivatives of the engine's ops (ops.h, layers.h, attention.h), one beside each, for the
// backward pass of attribution (attribution.h). Each takes what the forward kept and the
// gradient of a loss with respect to the op's output (dy), and gives the gradient with respect
// to its input (dx). A gradient may have several rows per forward row (one per seed: the output
// token whose log-probability is differentiated); the callers loop over them. Float32, the
// products through ops::gemm. Each is held against finite differences in
// tests/unit/test_backward_ops.cpp.
#pragma once

#include <cstdint>

#include "minimt/engine/architecture.h"
#include "minimt/engine/weights.h"

namespace minimt::backward {

// y[rows, out] = x W^T + b  =>  dx[rows, in] = dy[rows, out] W[out, in]; added to dx when
// accumulate, else written.
void linear(const float* weight, int out, int in, const float* dy, int64_t rows, float* dx,
            bool accumulate = false);

// The statistics a norm's backward needs of one forward row x [dim]: xhat = the normalized row
// before the weight ((x - mean) * rstd for a layer norm, x * rstd for an RMS norm), and rstd =
// 1 / sqrt(var + eps) (RMS: 1 / sqrt(mean(x^2) + eps)). Computed in double.
void norm_statistics(NormKind kind, const float* x, int dim, float eps, float* xhat, float* rstd);

// y = xhat * weight (+ bias)  =>  with g = dy * weight:
//   layer norm: dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   RMS norm:   dx = rstd * (g - xhat * mean(g * xhat))
// One row; dx may alias dy.
void norm(NormKind kind, const float* xhat, float rstd, const float* weight, int dim,
          const float* dy, float* dx);

// y = softmax(x) over one row  =>  dx = y * (dy - sum(y * dy)). Entries with y = 0 (the causal
// mask's -infinity, a masked head) get dx = 0. dx may alias dy.
void softmax(const float* y, const float* dy, int length, float* dx);

// y = act(x) element-wise  =>  dx = dy * act'(x): relu (0 at x <= 0), gelu (erf form:
// Phi(x) + x phi(x)), gelu_tanh, silu (s (1 + x (1 - s)), s the sigmoid). dx may alias dy.
void activation(Activation activation, const float* x, const float* dy, int64_t count, float* dx);

// f = log_softmax(logits)[target]  =>  df/dlogits = onehot(target) - softmax(logits), into
// dlogits [vocab]. Returns f.
float log_softmax_target(const float* logits, int vocab, int target, float* dlogits);

}  // namespace minimt::backward
