#include "cli/blas_setup.h"

#include <cstdlib>

#include "minimt/engine/blas_runtime.h"

namespace minimt::cli {

void prepare_blas_environment() {
  const BlasEnvironment settings = blas_environment(
      std::getenv("OPENBLAS_CORETYPE"), std::getenv("OPENBLAS_NUM_THREADS"), preferred_blas_core());
  if (!settings.core_type.empty()) setenv("OPENBLAS_CORETYPE", settings.core_type.c_str(), 1);
  if (!settings.num_threads.empty())
    setenv("OPENBLAS_NUM_THREADS", settings.num_threads.c_str(), 1);
}

}  // namespace minimt::cli
