#include "minimt/engine/ops.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <ctime>
#include <limits>
#include <vector>

#include "engine/kernels/fma_clones.h"
#include "engine/kernels/kernel_table.h"
#include "minimt/engine/bf16_gemm.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/engine/int8_gemm.h"
#include "minimt/engine/packed_gemm.h"

namespace minimt::ops {
namespace {
std::atomic<uint64_t> flop_counter{0};
std::atomic<bool> timing{false};
std::atomic<uint64_t> linear_time{0};

void linear_untimed(const Linear& layer, const float* x, int rows, float* y);
void linear_many_untimed(const Linear* const* layers, int count, const float* x, int rows,
                         float* const* ys);

// Adds the thread CPU time of product() to the counter when timing is on.
template <typename Product>
void timed(Product&& product) {
  if (!timing.load(std::memory_order_relaxed)) return product();
  // The thread's CPU time: on a busy machine the wall clock counts other processes' turns.
  timespec start{}, end{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  product();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
  linear_time.fetch_add(static_cast<uint64_t>((end.tv_sec - start.tv_sec) * 1000000000LL +
                                              (end.tv_nsec - start.tv_nsec)),
                        std::memory_order_relaxed);
}
}  // namespace

void time_linear(bool on) {
  timing.store(on, std::memory_order_relaxed);
}

uint64_t linear_nanoseconds() {
  return linear_time.load(std::memory_order_relaxed);
}

void linear(const Linear& layer, const float* x, int rows, float* y) {
  timed([&] { linear_untimed(layer, x, rows, y); });
}

void linear_many(const Linear* const* layers, int count, const float* x, int rows,
                 float* const* ys) {
  timed([&] { linear_many_untimed(layers, count, x, rows, ys); });
}

void gemm(int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
          bool b_transposed, float beta, float* c, int ldc) {
  if (m == 0 || n == 0) return;
  flop_counter.fetch_add(2ull * m * n * k, std::memory_order_relaxed);
  if (m == 1) {
    // One row (a decoder step at batch 1, one query): sgemm would first pack all of B, which
    // costs more than the product itself; sgemv streams B once.
    if (b_transposed)  // c[n] = B[n, k] a[k]
      blas_sgemv(false, n, k, alpha, b, ldb, a, beta, c);
    else  // c[n] = B[k, n]^T a[k]
      blas_sgemv(true, k, n, alpha, b, ldb, a, beta, c);
    return;
  }
  blas_sgemm(b_transposed, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

uint64_t gemm_flops() {
  return flop_counter.load(std::memory_order_relaxed);
}

namespace {

void linear_untimed(const Linear& layer, const float* x, int rows, float* y) {
  if (layer.int8) {
    flop_counter.fetch_add(2ull * rows * layer.out * layer.in, std::memory_order_relaxed);
    int8_linear(*layer.int8, layer.bias, x, rows, layer.in, y);
    return;
  }
  if (layer.bf16) {
    flop_counter.fetch_add(2ull * rows * layer.out * layer.in, std::memory_order_relaxed);
    bf16_linear(*layer.bf16, layer.bias, x, rows, layer.in, y);
    return;
  }
  if (layer.packed) {
    flop_counter.fetch_add(2ull * rows * layer.out * layer.in, std::memory_order_relaxed);
    packed_linear(*layer.packed, layer.bias, x, rows, layer.in, y);
    return;
  }
  // Start from the bias broadcast over rows, then accumulate x W^T into it (beta = 1).
  for (int r = 0; r < rows; ++r) {
    float* out = y + static_cast<int64_t>(r) * layer.out;
    if (layer.bias)
      std::copy(layer.bias, layer.bias + layer.out, out);
    else
      std::fill(out, out + layer.out, 0.0f);
  }
  gemm(rows, layer.out, layer.in, 1.0f, x, layer.in, layer.weight, layer.in, true, 1.0f, y,
       layer.out);
}

void linear_many_untimed(const Linear* const* layers, int count, const float* x, int rows,
                         float* const* ys) {
  constexpr int kMost = 4;
  bool int8 = count <= kMost, bf16 = count <= kMost;
  for (int j = 0; j < count; ++j) {
    const Linear& layer = *layers[j];
    int8 = int8 && layer.int8 && layer.in == layers[0]->in &&
           layer.int8->kernel() == layers[0]->int8->kernel();
    bf16 = bf16 && layer.bf16 && layer.in == layers[0]->in;
  }
  if (count > 0 && (int8 || bf16)) {
    const Int8Matrix* int8_weights[kMost];
    const Bf16Matrix* bf16_weights[kMost];
    const float* biases[kMost];
    for (int j = 0; j < count; ++j) {
      const Linear& layer = *layers[j];
      flop_counter.fetch_add(2ull * rows * layer.out * layer.in, std::memory_order_relaxed);
      int8_weights[j] = layer.int8;
      bf16_weights[j] = layer.bf16;
      biases[j] = layer.bias;
    }
    if (int8)
      int8_linear_many(int8_weights, biases, count, x, rows, layers[0]->in, ys);
    else
      bf16_linear_many(bf16_weights, biases, count, x, rows, layers[0]->in, ys);
    return;
  }
  // float32 has nothing to share: each product reads x as it is.
  for (int j = 0; j < count; ++j) linear_untimed(*layers[j], x, rows, ys[j]);
}

}  // namespace

void layer_norm(const LayerNormWeights& norm, float* x, int rows, int dim, float eps) {
  const auto kernel = kernels::row_kernels().layer_norm_row;
  for (int r = 0; r < rows; ++r)
    kernel(x + static_cast<int64_t>(r) * dim, dim, norm.weight, norm.bias, eps);
}

void rms_norm(const LayerNormWeights& norm, float* x, int rows, int dim, float eps) {
  const auto kernel = kernels::row_kernels().rms_norm_row;
  for (int r = 0; r < rows; ++r) kernel(x + static_cast<int64_t>(r) * dim, dim, norm.weight, eps);
}

void multiply_in_place(float* x, const float* y, int64_t count) {
  for (int64_t i = 0; i < count; ++i) x[i] *= y[i];
}

MINIMT_WIDE_CLONES void scale_in_place(float* x, float factor, int64_t count) {
  for (int64_t i = 0; i < count; ++i) x[i] *= factor;
}

MINIMT_WIDE_CLONES void add_in_place(float* x, const float* y, int64_t count) {
  for (int64_t i = 0; i < count; ++i) x[i] += y[i];
}

void softmax(float* row, int length) {
  float peak = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < length; ++i) peak = std::max(peak, row[i]);
  float sum = 0.0f;
  for (int i = 0; i < length; ++i) {
    row[i] = std::exp(row[i] - peak);
    sum += row[i];
  }
  float inverse = 1.0f / sum;
  for (int i = 0; i < length; ++i) row[i] *= inverse;
}

namespace {

MINIMT_WIDE_CLONES void relu_in_place(float* x, int64_t count) {
  for (int64_t i = 0; i < count; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

}  // namespace

void activate(Activation activation, float* x, int64_t count) {
  switch (activation) {
    case Activation::kRelu:
      relu_in_place(x, count);
      break;
    case Activation::kGelu:  // the exact (erf) form
      for (int64_t i = 0; i < count; ++i)
        x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
      break;
    case Activation::kSilu:
      for (int64_t i = 0; i < count; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
      break;
    case Activation::kGeluTanh:  // transformers' gelu_new (T5 v1.1), term by term as it writes it
      for (int64_t i = 0; i < count; ++i) {
        const float cubic = x[i] + 0.044715f * (x[i] * x[i] * x[i]);
        x[i] = 0.5f * x[i] * (1.0f + std::tanh(0.79788456080286536f * cubic));
      }
      break;
  }
}

namespace {

// 10000^(2i/d_model): the divisor of position in pair i's angle.
double sinusoidal_divisor(int i, int d_model) {
  return std::pow(10000.0, 2.0 * i / d_model);
}

}  // namespace

void add_sinusoidal_position(int position, int d_model, float* out) {
  for (int i = 0; 2 * i < d_model; ++i) {
    const double angle = position / sinusoidal_divisor(i, d_model);
    out[2 * i] += static_cast<float>(std::sin(angle));
    if (2 * i + 1 < d_model) out[2 * i + 1] += static_cast<float>(std::cos(angle));
  }
}

void sinusoidal_table(int positions, int d_model, float* out) {
  // The divisors once for the table, not once per row: the same doubles, so the same floats.
  std::vector<double> divisors((d_model + 1) / 2);
  for (size_t i = 0; i < divisors.size(); ++i) divisors[i] = sinusoidal_divisor(int(i), d_model);
  for (int position = 0; position < positions; ++position) {
    float* row = out + static_cast<int64_t>(position) * d_model;
    for (int i = 0; 2 * i < d_model; ++i) {
      const double angle = position / divisors[i];
      row[2 * i] = static_cast<float>(std::sin(angle));
      if (2 * i + 1 < d_model) row[2 * i + 1] = static_cast<float>(std::cos(angle));
    }
  }
}

void add_sinusoidal_split_position(int position, int d_model, float* out) {
  const int half = d_model / 2;  // d_model >= 4: the config refuses less
  const float step = static_cast<float>(-(std::log(10000.0) / (half - 1)));
  const float at = static_cast<float>(position);
  for (int i = 0; i < half; ++i) {
    const float angle = at * std::exp(static_cast<float>(i) * step);
    out[i] += std::sin(angle);
    out[half + i] += std::cos(angle);
  }
}

float log_sum_exp(const float* row, int length) {
  const kernels::RowKernels& kernel = kernels::row_kernels();
  const float peak = kernel.row_max(row, length);
  if (!std::isfinite(peak)) return peak;  // empty or all -infinity: log 0; or inf/NaN
  return kernel.log_sum_exp(row, length, peak);
}

int argmax(const float* row, int length) {
  return kernels::row_kernels().argmax(row, length);
}

}  // namespace minimt::ops
