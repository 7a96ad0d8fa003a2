// The two products inside attention, one head and one query row at a time, in one summation
// order that every instruction set keeps, so all of them give the same bits (and so does any
// CPU, whichever core OpenBLAS would have picked):
//   scores:  out[j] = dot(q, key_j) * scale, the dot in kDotLanes lanes: element d goes to lane
//            d % kDotLanes by fused multiply-adds in increasing d (past dim, zeros: each adds
//            exactly +0), the lanes then summed by reduce_lanes() (row_kernels.h).
//   context: out[d] = sum over j < count of weight[j] * value_j[d], one chain of fused
//            multiply-adds in increasing j starting from +0.
// The x86 ones are built only on x86-64 (see CMakeLists.txt).
#pragma once

namespace minimt::kernels {

constexpr int kDotLanes = 16;  // one AVX-512 or two AVX2 vectors

// One instruction set's attention products. Rows of keys and values are `stride` floats apart;
// q, each key and each value row hold `dim` floats.
struct AttentionKernels {
  const char* name;
  void (*scores)(const float* q, const float* keys, int stride, int count, int dim, float scale,
                 float* out);
  void (*context)(const float* weights, const float* values, int stride, int count, int dim,
                  float* out);
  // Optional (null where the set has none): every head of one query at once, key row by key
  // row, the same bits as `scores` and `context` head by head. Head r's q, keys and values are
  // columns r*dim .. (r+1)*dim-1; its scores go to out + r*out_stride, its weights are read from
  // weights + r*weight_stride, and out holds heads*dim context columns. `values`, if not null,
  // are the rows context_heads reads next: scores_heads prefetches them.
  void (*scores_heads)(const float* q, const float* keys, const float* values, int stride,
                       int count, int heads, int dim, float scale, float* out, int out_stride);
  void (*context_heads)(const float* weights, int weight_stride, const float* values, int stride,
                        int count, int heads, int dim, float* out);
};

void attention_scores_generic(const float* q, const float* keys, int stride, int count, int dim,
                              float scale, float* out);
void attention_context_generic(const float* weights, const float* values, int stride, int count,
                               int dim, float* out);
#if defined(__x86_64__)
void attention_scores_avx2(const float* q, const float* keys, int stride, int count, int dim,
                           float scale, float* out);
void attention_context_avx2(const float* weights, const float* values, int stride, int count,
                            int dim, float* out);
void attention_scores_avx512(const float* q, const float* keys, int stride, int count, int dim,
                             float scale, float* out);
void attention_context_avx512(const float* weights, const float* values, int stride, int count,
                              int dim, float* out);
void attention_scores_heads_avx512(const float* q, const float* keys, const float* values,
                                   int stride, int count, int heads, int dim, float scale,
                                   float* out, int out_stride);
void attention_context_heads_avx512(const float* weights, int weight_stride, const float* values,
                                    int stride, int count, int heads, int dim, float* out);
#endif

}  // namespace minimt::kernels
