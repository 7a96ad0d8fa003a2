#include <algorithm>
#include <cmath>

#include "minimt/engine/backward_ops.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {

void linear(const float* weight, int out, int in, const float* dy, int64_t rows, float* dx,
            bool accumulate) {
  if (rows == 0) return;
  // dx[rows, in] = dy[rows, out] W[out, in]: W read as it is stored, not transposed.
  ops::gemm(static_cast<int>(rows), in, out, 1.0f, dy, out, weight, in, false,
            accumulate ? 1.0f : 0.0f, dx, in);
}

void norm_statistics(NormKind kind, const float* x, int dim, float eps, float* xhat, float* rstd) {
  double mean = 0.0;
  if (kind == NormKind::kLayerNorm) {
    for (int i = 0; i < dim; ++i) mean += x[i];
    mean /= dim;
  }
  double square = 0.0;
  for (int i = 0; i < dim; ++i) square += (x[i] - mean) * (x[i] - mean);
  const double r = 1.0 / std::sqrt(square / dim + eps);
  for (int i = 0; i < dim; ++i) xhat[i] = static_cast<float>((x[i] - mean) * r);
  *rstd = static_cast<float>(r);
}

void norm(NormKind kind, const float* xhat, float rstd, const float* weight, int dim,
          const float* dy, float* dx) {
  double sum_g = 0.0, sum_gx = 0.0;
  for (int i = 0; i < dim; ++i) {
    const double g = static_cast<double>(dy[i]) * weight[i];
    sum_g += g;
    sum_gx += g * xhat[i];
  }
  const double mean_g = kind == NormKind::kLayerNorm ? sum_g / dim : 0.0;
  const double mean_gx = sum_gx / dim;
  for (int i = 0; i < dim; ++i) {
    const double g = static_cast<double>(dy[i]) * weight[i];
    dx[i] = static_cast<float>(rstd * (g - mean_g - xhat[i] * mean_gx));
  }
}

void softmax(const float* y, const float* dy, int length, float* dx) {
  double dot = 0.0;
  for (int i = 0; i < length; ++i) dot += static_cast<double>(y[i]) * dy[i];
  for (int i = 0; i < length; ++i) dx[i] = y[i] == 0.0f ? 0.0f : y[i] * (dy[i] - float(dot));
}

void activation(Activation activation, const float* x, const float* dy, int64_t count, float* dx) {
  switch (activation) {
    case Activation::kRelu:
      for (int64_t i = 0; i < count; ++i) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
      break;
    case Activation::kGelu:  // d/dx 0.5 x (1 + erf(x / sqrt 2)) = Phi(x) + x phi(x)
      for (int64_t i = 0; i < count; ++i) {
        const float phi = 0.39894228040143268f * std::exp(-0.5f * x[i] * x[i]);
        const float cdf = 0.5f * (1.0f + std::erf(x[i] * 0.70710678118654752f));
        dx[i] = dy[i] * (cdf + x[i] * phi);
      }
      break;
    case Activation::kSilu:  // d/dx x s(x) = s (1 + x (1 - s))
      for (int64_t i = 0; i < count; ++i) {
        const float s = 1.0f / (1.0f + std::exp(-x[i]));
        dx[i] = dy[i] * s * (1.0f + x[i] * (1.0f - s));
      }
      break;
    case Activation::kGeluTanh:  // 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) u', u = c (x + a x^3)
      for (int64_t i = 0; i < count; ++i) {
        constexpr float c = 0.79788456080286536f, a = 0.044715f;
        const float t = std::tanh(c * (x[i] + a * x[i] * x[i] * x[i]));
        const float inner = c * (1.0f + 3.0f * a * x[i] * x[i]);
        dx[i] = dy[i] * (0.5f * (1.0f + t) + 0.5f * x[i] * (1.0f - t * t) * inner);
      }
      break;
  }
}

float log_softmax_target(const float* logits, int vocab, int target, float* dlogits) {
  float peak = logits[0];
  for (int i = 1; i < vocab; ++i) peak = std::max(peak, logits[i]);
  double sum = 0.0;
  for (int i = 0; i < vocab; ++i) sum += std::exp(static_cast<double>(logits[i]) - peak);
  const double normalizer = peak + std::log(sum);
  for (int i = 0; i < vocab; ++i)
    dlogits[i] = -static_cast<float>(std::exp(static_cast<double>(logits[i]) - normalizer));
  dlogits[target] += 1.0f;
  return static_cast<float>(logits[target] - normalizer);
}

}  // namespace minimt::backward
