#include "minimt/engine/bf16_gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/kernels/bf16_kernels.h"
#include "minimt/base/error.h"
#include "minimt/engine/compute_type.h"

namespace minimt {

size_t Bf16Matrix::bytes_needed(int n, int k) {
  const size_t panels = (n + kPanel - 1) / kPanel;
  return panels * static_cast<size_t>((k + 1) / 2) * 128;
}

Bf16Matrix::Bf16Matrix(const float* weight, int n, int k, uint8_t* storage)
    : Bf16Matrix(
          [weight, k](int c, float* out) {
            std::copy(weight + static_cast<size_t>(c) * k, weight + static_cast<size_t>(c + 1) * k,
                      out);
          },
          n, k, storage) {}

Bf16Matrix::Bf16Matrix(const std::function<void(int, float*)>& rows, int n, int k, uint8_t* storage)
    : n_(n), k_(k), data_(reinterpret_cast<uint16_t*>(storage)) {
  const std::string reason = compute_type_unsupported_reason(ComputeType::kBf16);
  if (!reason.empty()) throw Error(reason);
  std::memset(storage, 0, bytes());  // columns past n and the input past an odd k are zeros
  std::vector<float> row(k);
  for (int c = 0; c < n; ++c) {
    rows(c, row.data());
    uint16_t* out = data_ + static_cast<size_t>(c / kPanel) * pairs() * 64 + (c % kPanel) * 2;
    for (int i = 0; i < k; ++i)
      out[static_cast<size_t>(i / 2) * 64 + i % 2] = float_to_bf16(row[i]);
  }
}

void bf16_linear(const Bf16Matrix& weight, const float* bias, const float* x, int m, int ldx,
                 float* y) {
  const Bf16Matrix* weights[] = {&weight};
  const float* biases[] = {bias};
  float* ys[] = {y};
  bf16_linear_many(weights, biases, 1, x, m, ldx, ys);
}

void bf16_linear_many(const Bf16Matrix* const* weights, const float* const* biases, int count,
                      const float* x, int m, int ldx, float* const* ys) {
  for (int j = 1; j < count; ++j)
    if (weights[j]->cols() != weights[0]->cols())
      throw Error("bf16 products of one input need the same inputs");
#if defined(__x86_64__)
  kernels::bf16_linear_avx512(weights, biases, count, x, m, ldx, ys);
#else
  (void)weights, (void)biases, (void)count, (void)x, (void)m, (void)ldx, (void)ys;
  throw Error(compute_type_unsupported_reason(ComputeType::kBf16));
#endif
}

}  // namespace minimt
