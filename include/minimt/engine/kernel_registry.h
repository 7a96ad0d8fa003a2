// Every compute kernel minimt has, what each needs from the CPU, and the one place that chooses
// among them. Nothing else asks the CPU what it supports or picks a kernel: packing, the
// products, the row and attention kernels, `minimt info` and the tests all read this registry.
//
// Kernels do five jobs; for each, the instruction sets give the same bits (docs/architecture.md,
// "What is bit-identical"), so the choice changes speed, never results. The one exception is the
// openblas Linear kernel (sgemm blocks by row count, so its rounding moves with the batch).
//   linear     float32 Linear layers over packed weights: avx512, avx2, generic (or openblas)
//   int8       int8 Linear layers: avx512-vnni, avx2, generic
//   bf16       bfloat16 Linear layers: avx512-bf16 only (elsewhere bf16 is refused)
//   rows       log_sum_exp and layer norm: avx512, avx2, generic
//   attention  the per-head products q.k and a.v: avx512, avx2, generic
// The linear and int8 kernels follow the caller's choice (MINIMT_KERNELS, read by the CLI);
// the rows and attention kernels are the fastest the CPU runs.
#pragma once

#include <string>
#include <vector>

namespace minimt {

// Who computes the float32 Linear layers. kOpenblas packs nothing: every product goes to sgemm.
enum class LinearKernel { kOpenblas, kGeneric, kAvx2, kAvx512 };
// Who computes the int8 products (all three compute the same int32 sums).
enum class Int8Kernel { kGeneric, kAvx2, kAvx512Vnni };

enum class KernelJob { kLinear, kInt8, kBf16, kRows, kAttention };

struct KernelEntry {
  KernelJob job;
  std::string name;   // as `info` prints it and MINIMT_KERNELS (for linear) names it
  std::string needs;  // the CPU features it needs, as /proc/cpuinfo spells them ("" for none)
  bool supported;     // this CPU has them
};

std::string to_string(KernelJob job);
std::string to_string(LinearKernel kernel);
std::string to_string(Int8Kernel kernel);

// Every kernel, each job's fastest first.
std::vector<KernelEntry> kernel_list();

// "openblas", "generic", "avx2" or "avx512"; throws Error naming the accepted words otherwise.
LinearKernel parse_linear_kernel(const std::string& word);
// As parse_linear_kernel, but "" and "auto" mean best_linear_kernel() (how MINIMT_KERNELS reads).
LinearKernel choose_linear_kernel(const std::string& word);
bool linear_kernel_supported(LinearKernel kernel);
// avx512, else avx2, else (x86: the generic kernel would call a library fma per product, some
// 70 times slower) openblas, else (aarch64 and others, where fma is one instruction) generic.
LinearKernel best_linear_kernel();

bool int8_kernel_supported(Int8Kernel kernel);
Int8Kernel best_int8_kernel();
// The int8 kernel of the same instruction set as a float kernel (how MINIMT_KERNELS picks one):
// avx512 -> VNNI (AVX2 without VNNI), avx2 -> AVX2, generic and openblas -> portable.
Int8Kernel int8_kernel_matching(LinearKernel kernel);

// Whether the bf16 kernel runs here (AVX512_BF16 and AVX512BW).
bool bf16_kernel_supported();

// The names of the rows and attention kernels in use (the fastest this CPU runs).
std::string row_kernel_name();
std::string attention_kernel_name();

}  // namespace minimt
