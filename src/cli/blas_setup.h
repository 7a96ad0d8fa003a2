// The environment OpenBLAS reads when it loads: set by the executable (the library reads no
// environment), at start, before any thread runs.
#pragma once

namespace minimt::cli {

// Sets OPENBLAS_CORETYPE to the CPU's own core and OPENBLAS_NUM_THREADS to 1, each unless the
// user set it (blas_environment in minimt/engine/blas_runtime.h). Loads nothing: OpenBLAS opens
// on first use, which most runs never reach.
void prepare_blas_environment();

}  // namespace minimt::cli
