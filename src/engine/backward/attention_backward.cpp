#include "minimt/engine/attention_backward.h"

#include <algorithm>
#include <cstdint>

#include "minimt/engine/backward_ops.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {
namespace {

float* grow(std::vector<float>& v, size_t count) {
  if (v.size() < count) v.resize(count);
  return v.data();
}

// Zeros columns [column, column + width) of `rows` rows `stride` apart.
void zero_columns(float* x, int64_t rows, int stride, int column, int width) {
  for (int64_t r = 0; r < rows; ++r) std::fill_n(x + r * stride + column, width, 0.0f);
}

}  // namespace

void attention(const AttentionTape& tape, const float* dcontext, int seeds, float* dq, float* dk,
               float* dv, AttentionBackwardScratch& scratch) {
  const int tq = tape.tq, tk = tape.tk, dh = tape.head_dim, width = tape.heads * dh;
  const int64_t rows = static_cast<int64_t>(seeds) * tq;  // every seed's queries, one GEMM
  const int64_t head_stride = tape.head_stride ? tape.head_stride : static_cast<int64_t>(tq) * tk;
  const int row_stride = tape.row_stride ? tape.row_stride : tk;
  for (int r = 0; r < tape.heads; ++r) {
    const int column = r * dh;
    if (tape.masked_heads && tape.masked_heads[r]) {  // A_r = 0: nothing flows through it
      zero_columns(dq, rows, width, column, dh);
      zero_columns(dk, static_cast<int64_t>(seeds) * tk, width, column, dh);
      zero_columns(dv, static_cast<int64_t>(seeds) * tk, width, column, dh);
      continue;
    }
    const float* a = tape.weights + r * head_stride;  // [tq, tk], rows row_stride apart
    // dA [seeds*tq, tk] = dC_r [seeds*tq, dk] V_r^T
    float* da = grow(scratch.dweights, static_cast<size_t>(rows) * tk);
    ops::gemm(static_cast<int>(rows), tk, dh, 1.0f, dcontext + column, width, tape.v + column,
              width, true, 0.0f, da, tk);
    // dS, in place: each row against its query's weights (the same for every seed)
    for (int64_t row = 0; row < rows; ++row)
      softmax(a + (row % tq) * row_stride, da + row * tk, tk, da + row * tk);
    // dQ_r [seeds*tq, dk] = scale dS K_r
    ops::gemm(static_cast<int>(rows), dh, tk, tape.scale, da, tk, tape.k + column, width, false,
              0.0f, dq + column, width);
    // dK_r [seeds*tk, dk] = scale dS_b^T Q_r, every seed's dS transposed: [seeds][tk][tq]
    float* st = grow(scratch.transposed, static_cast<size_t>(seeds) * tk * tq);
    for (int b = 0; b < seeds; ++b)
      for (int i = 0; i < tq; ++i)
        for (int j = 0; j < tk; ++j)
          st[(static_cast<int64_t>(b) * tk + j) * tq + i] =
              da[(static_cast<int64_t>(b) * tq + i) * tk + j];
    ops::gemm(seeds * tk, dh, tq, tape.scale, st, tq, tape.q + column, width, false, 0.0f,
              dk + column, width);
    // dV_r: A_r^T [tk, tq] times every seed's dC_r side by side [tq, seeds*dk], one GEMM
    float* at = grow(scratch.transposed, static_cast<size_t>(tk) * tq);
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j)
        at[static_cast<int64_t>(j) * tq + i] = a[static_cast<int64_t>(i) * row_stride + j];
    const int wide = seeds * dh;
    float* gathered = grow(scratch.gathered, static_cast<size_t>(tq) * wide);
    for (int b = 0; b < seeds; ++b)
      for (int i = 0; i < tq; ++i)
        std::copy_n(dcontext + (static_cast<int64_t>(b) * tq + i) * width + column, dh,
                    gathered + static_cast<int64_t>(i) * wide + b * dh);
    float* product = grow(scratch.product, static_cast<size_t>(tk) * wide);
    ops::gemm(tk, wide, tq, 1.0f, at, tq, gathered, wide, false, 0.0f, product, wide);
    for (int b = 0; b < seeds; ++b)
      for (int j = 0; j < tk; ++j)
        std::copy_n(product + static_cast<int64_t>(j) * wide + b * dh, dh,
                    dv + (static_cast<int64_t>(b) * tk + j) * width + column);
  }
}

}  // namespace minimt::backward
