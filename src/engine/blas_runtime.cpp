#include "minimt/engine/blas_runtime.h"

#include <cblas.h>  // the types and constants only: the functions come from dlopen
#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "minimt/base/error.h"

namespace minimt {
namespace {

constexpr const char* kLibrary = "libopenblas.so.0";

// The functions minimt calls, looked up once.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_sgemv) sgemv = nullptr;
  decltype(&openblas_get_corename) corename = nullptr;
  decltype(&openblas_set_num_threads) set_threads = nullptr;
  decltype(&openblas_get_num_threads) get_threads = nullptr;
  // OpenBLAS's own exit from its thread pool (what it runs before a fork), exported by its
  // pthread and OpenMP builds but not declared in cblas.h; null where a build lacks it.
  int (*shutdown_pool)() = nullptr;
};

template <typename Function>
void find(void* library, const char* name, Function& function, bool required = true) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (!function && required)
    throw Error(std::string(kLibrary) + " has no " + name + " (is it OpenBLAS?)");
}

Blas open_blas() {
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    throw Error(std::string("cannot open OpenBLAS (") + dlerror() +
                "); only MINIMT_KERNELS=openblas, or a CPU without AVX2, needs it: install "
                "Debian's libopenblas0");
  Blas blas;
  find(library, "cblas_sgemm", blas.sgemm);
  find(library, "cblas_sgemv", blas.sgemv);
  find(library, "openblas_get_corename", blas.corename);
  find(library, "openblas_set_num_threads", blas.set_threads);
  find(library, "openblas_get_num_threads", blas.get_threads);
  find(library, "blas_thread_shutdown_", blas.shutdown_pool, false);
  // minimt's matrices are small: threads inside one product cost more than they give (minimt
  // translates sentences side by side instead). One thread, and the pool OpenBLAS may have
  // started (when OPENBLAS_NUM_THREADS was not 1) ended: its workers would spin.
  blas.set_threads(1);
  if (blas.shutdown_pool) blas.shutdown_pool();
  return blas;
}

std::once_flag opened;
Blas library;
std::atomic<bool> loaded{false};

const Blas& blas() {
  std::call_once(opened, [] {
    library = open_blas();
    loaded = true;
  });
  return library;
}

}  // namespace

std::string preferred_blas_core() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

BlasEnvironment blas_environment(const char* user_core_type, const char* user_num_threads,
                                 const std::string& preferred_core) {
  BlasEnvironment settings;
  if (!user_core_type) settings.core_type = preferred_core;  // the user's choice stands
  if (!user_num_threads) settings.num_threads = "1";
  return settings;
}

void load_blas() {
  blas();
}

bool blas_loaded() {
  return loaded;
}

std::string blas_core_name() {
  const char* name = blas().corename();
  return name ? name : "unknown";
}

int blas_threads() {
  return blas().get_threads();
}

void blas_sgemm(bool b_transposed, int m, int n, int k, float alpha, const float* a, int lda,
                const float* b, int ldb, float beta, float* c, int ldc) {
  blas().sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, m, n, k,
               alpha, a, lda, b, ldb, beta, c, ldc);
}

void blas_sgemv(bool transposed, int rows, int cols, float alpha, const float* a, int lda,
                const float* x, float beta, float* y) {
  blas().sgemv(CblasRowMajor, transposed ? CblasTrans : CblasNoTrans, rows, cols, alpha, a, lda, x,
               1, beta, y, 1);
}

}  // namespace minimt
