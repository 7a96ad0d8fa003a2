// OpenBLAS, opened on first use. minimt's own kernels compute every product of a translation
// (kernel_registry.h), so a run pays nothing for OpenBLAS unless it asks for it
// (MINIMT_KERNELS=openblas, or an x86 CPU without AVX2 and FMA): no library, Fortran runtime,
// CPU probe or thread pool at start-up. Every product it computes runs on one thread.
#pragma once

#include <string>

namespace minimt {

// The OPENBLAS_CORETYPE this CPU should use ("SkylakeX", "Haswell"), or "" to leave it to
// OpenBLAS. Debian 12's OpenBLAS 0.3.21 does not recognise some recent CPUs and falls back to its
// slowest (Prescott) kernels; it reads the variable when it loads.
std::string preferred_blas_core();

// The environment to set before OpenBLAS loads: OPENBLAS_CORETYPE (the preferred core, unless
// the user set one) and OPENBLAS_NUM_THREADS (1, unless the user set it: minimt never uses its
// pool). Empty values mean "leave as is".
struct BlasEnvironment {
  std::string core_type;
  std::string num_threads;
};
BlasEnvironment blas_environment(const char* user_core_type, const char* user_num_threads,
                                 const std::string& preferred_core);

// Opens OpenBLAS (libopenblas.so.0) if it is not open yet, and sets it to one thread. Throws
// Error naming the library when it cannot be opened.
void load_blas();
bool blas_loaded();

// The kernel set OpenBLAS runs ("SkylakeX"), as openblas_get_corename() reports it (loads it).
std::string blas_core_name();
// Threads OpenBLAS uses inside one product (loads it): 1.
int blas_threads();

// C = alpha * A op(B) + beta * C through OpenBLAS's cblas_sgemm / cblas_sgemv (ops::gemm).
void blas_sgemm(bool b_transposed, int m, int n, int k, float alpha, const float* a, int lda,
                const float* b, int ldb, float beta, float* c, int ldc);
void blas_sgemv(bool transposed, int rows, int cols, float alpha, const float* a, int lda,
                const float* x, float beta, float* y);

}  // namespace minimt
