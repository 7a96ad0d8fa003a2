#include "minimt/engine/int8_gemm.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/kernels/kernel_table.h"
#include "minimt/base/error.h"
#include "minimt/engine/quantize.h"

namespace minimt {
namespace {

size_t align64(size_t bytes) {
  return (bytes + 63) / 64 * 64;
}

size_t panel_bytes(int n, int k) {
  const size_t panels = (n + Int8Matrix::kPanel - 1) / Int8Matrix::kPanel;
  const size_t groups = (k + Int8Matrix::kGroup - 1) / Int8Matrix::kGroup;
  return align64(panels * groups * 128);
}

}  // namespace

size_t Int8Matrix::bytes_needed(int n, int k) {
  const size_t columns = static_cast<size_t>((n + kPanel - 1) / kPanel) * kPanel;
  return panel_bytes(n, k) + align64(columns * sizeof(float)) + align64(columns * sizeof(int32_t));
}

Int8Matrix::Int8Matrix(int n, int k, uint8_t* storage, Int8Kernel kernel)
    : n_(n), k_(k), data_(storage), kernel_(kernel) {
  if (!int8_kernel_supported(kernel))
    throw Error("the " + to_string(kernel) + " int8 kernel does not run on this CPU");
  const size_t columns = static_cast<size_t>(panels()) * kPanel;
  scales_ = reinterpret_cast<float*>(storage + panel_bytes(n, k));
  sums_ =
      reinterpret_cast<int32_t*>(storage + panel_bytes(n, k) + align64(columns * sizeof(float)));
  // Columns past n and inputs past k are zeros: the kernels need no edge cases inside the loop.
  std::memset(data_, 0, panel_bytes(n, k));
  std::fill(scales_, scales_ + columns, 0.0f);
  std::fill(sums_, sums_ + columns, 0);
}

// Writes column `column`'s quantized weights into its panel: [group][column % 32][4].
void Int8Matrix::pack_row(int column, const int8_t* quantized, float scale) {
  int8_t* out = reinterpret_cast<int8_t*>(data_) +
                static_cast<size_t>(column / kPanel) * groups() * 128 + (column % kPanel) * kGroup;
  int32_t sum = 0;
  for (int i = 0; i < k_; ++i) {
    out[static_cast<size_t>(i / kGroup) * 128 + i % kGroup] = quantized[i];
    sum += quantized[i];
  }
  scales_[column] = scale;
  sums_[column] = sum;
}

Int8Matrix Int8Matrix::from_float(const float* weight, int n, int k, uint8_t* storage,
                                  Int8Kernel kernel) {
  return from_rows(
      [weight, k](int c, float* out) {
        std::copy(weight + static_cast<size_t>(c) * k, weight + static_cast<size_t>(c + 1) * k,
                  out);
      },
      n, k, storage, kernel);
}

Int8Matrix Int8Matrix::from_rows(const std::function<void(int, float*)>& rows, int n, int k,
                                 uint8_t* storage, Int8Kernel kernel) {
  Int8Matrix matrix(n, k, storage, kernel);
  std::vector<float> values(k);
  std::vector<int8_t> row(k);
  for (int c = 0; c < n; ++c) {
    rows(c, values.data());
#if defined(__x86_64__)
    // The vector quantizer gives the same bytes as quantize_row_int8, some 10 times faster.
    if (kernel == Int8Kernel::kAvx512Vnni) {
      const float scale = kernels::quantize_row_avx512(values.data(), k, k, false,
                                                       reinterpret_cast<uint8_t*>(row.data()));
      matrix.pack_row(c, row.data(), scale);
      continue;
    }
#endif
    matrix.pack_row(c, row.data(), quantize_row_int8(values.data(), k, row.data()));
  }
  return matrix;
}

Int8Matrix Int8Matrix::from_int8(const int8_t* weight, const float* scales, int n, int k,
                                 uint8_t* storage, Int8Kernel kernel) {
  Int8Matrix matrix(n, k, storage, kernel);
  for (int c = 0; c < n; ++c) matrix.pack_row(c, weight + static_cast<size_t>(c) * k, scales[c]);
  return matrix;
}

namespace {

// Quantizes m rows of x into this thread's buffers (reused across calls: no allocation per
// product once they have grown).
kernels::QuantizedRows quantize_rows(const float* x, int m, int k, int ldx, int stride,
                                     Int8Kernel kernel) {
  thread_local std::vector<uint8_t> bytes;
  thread_local std::vector<float> scales;
  thread_local std::vector<int8_t> row;
  bytes.resize(static_cast<size_t>(m) * stride);
  scales.resize(m);
  const bool offset = kernel == Int8Kernel::kAvx512Vnni;
  for (int r = 0; r < m; ++r) {
    uint8_t* out = bytes.data() + static_cast<size_t>(r) * stride;
    const float* in = x + static_cast<size_t>(r) * ldx;
#if defined(__x86_64__)
    if (kernel == Int8Kernel::kAvx512Vnni) {
      scales[r] = kernels::quantize_row_avx512(in, k, stride, offset, out);
      continue;
    }
#endif
    row.resize(k);
    scales[r] = quantize_row_int8(in, k, row.data());
    for (int i = 0; i < stride; ++i) {
      const int8_t q = i < k ? row[i] : int8_t{0};
      out[i] = static_cast<uint8_t>(offset ? q + 128 : q);
    }
  }
  return {bytes.data(), scales.data(), m, stride};
}

}  // namespace

void int8_linear(const Int8Matrix& weight, const float* bias, const float* x, int m, int ldx,
                 float* y) {
  const Int8Matrix* weights[] = {&weight};
  const float* biases[] = {bias};
  float* ys[] = {y};
  int8_linear_many(weights, biases, 1, x, m, ldx, ys);
}

void int8_linear_many(const Int8Matrix* const* weights, const float* const* biases, int count,
                      const float* x, int m, int ldx, float* const* ys) {
  if (count == 0) return;
  const Int8Matrix& first = *weights[0];
  for (int j = 1; j < count; ++j)
    if (weights[j]->cols() != first.cols() || weights[j]->kernel() != first.kernel())
      throw Error("int8 products of one input need the same inputs and kernel");
  const int stride = first.groups() * Int8Matrix::kGroup;
  // The same quantized rows for every weight: each column's sum is still its own exact integer.
  const kernels::QuantizedRows rows =
      quantize_rows(x, m, first.cols(), ldx, stride, first.kernel());
  const kernels::Int8Linear product = kernels::int8_linear_function(first.kernel());
  for (int j = 0; j < count; ++j) product(*weights[j], biases[j], rows, ys[j]);
}

}  // namespace minimt
