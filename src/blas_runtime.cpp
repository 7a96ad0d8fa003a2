#include "minimt/blas_runtime.h"

#include <cblas.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

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

void ensure_fast_blas_kernels(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE")) return;  // the user's choice stands
  std::string preferred = preferred_blas_core();
  if (preferred.empty()) return;
  std::string current = blas_core_name();
  // Already on a kernel set of this family: OpenBLAS recognised the CPU (or a better one).
  if (strcasecmp(current.c_str(), preferred.c_str()) == 0 ||
      strcasecmp(current.c_str(), "Cooperlake") == 0 ||
      strcasecmp(current.c_str(), "SapphireRapids") == 0 ||
      (preferred == "Haswell" && strcasecmp(current.c_str(), "Zen") == 0))
    return;
  // Setting the variable first also guarantees the new process does not re-execute again.
  setenv("OPENBLAS_CORETYPE", preferred.c_str(), 1);
  execv("/proc/self/exe", argv);
  // execv returned: keep running on the kernels already loaded.
}

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
}

int blas_threads() {
  return openblas_get_num_threads();
}

}  // namespace minimt
