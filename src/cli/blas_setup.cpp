#include "cli/blas_setup.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "minimt/engine/blas_runtime.h"

namespace minimt::cli {

void ensure_fast_blas_kernels(char** argv) {
  std::string core = blas_core_to_request(std::getenv("OPENBLAS_CORETYPE"), blas_core_name(),
                                          preferred_blas_core());
  if (core.empty()) return;
  // Setting the variable first also guarantees the new process does not re-execute again.
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  // minimt runs every product on one thread: the new process need not start OpenBLAS's pool
  // (set_blas_threads(1) ends it where it was started).
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  execv("/proc/self/exe", argv);
  // execv returned: keep running on the kernels already loaded.
}

}  // namespace minimt::cli
