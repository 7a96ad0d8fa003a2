// The executable's start-up step that picks OpenBLAS's kernels: it reads and sets the
// environment and may re-execute the program, so it lives here and not in the library.
#pragma once

namespace minimt::cli {

// If OPENBLAS_CORETYPE is unset and OpenBLAS chose a slower core than the CPU supports, sets it
// and re-executes /proc/self/exe with the same arguments. Returns only when no re-exec happened
// (or it failed, in which case minimt runs on the slower kernels). Respects a value already set.
void ensure_fast_blas_kernels(char** argv);

}  // namespace minimt::cli
