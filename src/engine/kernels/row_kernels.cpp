// Picks the row kernels (row_kernels.h) by what the CPU reports, once.
#include "engine/kernels/row_kernels.h"

namespace minimt::kernels {

std::vector<RowKernels> supported_row_kernels() {
  std::vector<RowKernels> sets;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    sets.push_back({"avx512", row_max_avx512, log_sum_exp_avx512, layer_norm_row_avx512});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    sets.push_back({"avx2", row_max_avx2, log_sum_exp_avx2, layer_norm_row_avx2});
#endif
  sets.push_back({"generic", row_max_generic, log_sum_exp_generic, layer_norm_row_generic});
  return sets;
}

const RowKernels& row_kernels() {
  static const RowKernels best = supported_row_kernels().front();
  return best;
}

}  // namespace minimt::kernels
