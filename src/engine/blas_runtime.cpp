#include "minimt/engine/blas_runtime.h"

#include <cblas.h>

#include <cstdlib>
#include <cstring>

// OpenBLAS's own exit from its thread pool (what it runs before a fork), exported by its
// pthread and OpenMP builds but not declared in cblas.h; weak: a build without it leaves it null.
extern "C" int blas_thread_shutdown_(void) __attribute__((weak));

namespace minimt {

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

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

std::string blas_core_to_request(const char* user_setting, const std::string& current_core,
                                 const std::string& preferred_core) {
  if (user_setting || preferred_core.empty()) return "";  // the user's choice stands
  auto same = [&](const char* name) { return strcasecmp(current_core.c_str(), name) == 0; };
  if (same(preferred_core.c_str())) return "";
  // OpenBLAS recognised the CPU as a newer member of the preferred family.
  if (preferred_core == "SkylakeX" && (same("Cooperlake") || same("SapphireRapids"))) return "";
  if (preferred_core == "Haswell" && (same("Zen") || same("SkylakeX") || same("Cooperlake")))
    return "";
  return preferred_core;
}

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
  // Products on one thread never wake the pool: end it (minimt never asks for more threads).
  if (threads == 1 && blas_thread_shutdown_) blas_thread_shutdown_();
}

int blas_threads() {
  return openblas_get_num_threads();
}

}  // namespace minimt
