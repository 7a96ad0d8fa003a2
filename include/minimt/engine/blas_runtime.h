// OpenBLAS start-up policy. Debian 12's OpenBLAS 0.3.21 does not recognise some recent CPUs and
// falls back to its slowest (Prescott) kernels. OpenBLAS picks its kernels when the library is
// loaded, before main() runs, from OPENBLAS_CORETYPE; so the only way to get the right kernels
// without the user's help is to set it and re-execute the program once (cli/blas_setup.h does).
#pragma once

#include <string>

namespace minimt {

// The OPENBLAS_CORETYPE this CPU should use ("SkylakeX", "Haswell"), or "" to leave it to
// OpenBLAS.
std::string preferred_blas_core();

// The OPENBLAS_CORETYPE to set before re-executing, or "" to run as is: "" when the user set
// the variable (user_setting not null), when there is no better core, or when OpenBLAS already
// runs the preferred core (or a newer one of its family).
std::string blas_core_to_request(const char* user_setting, const std::string& current_core,
                                 const std::string& preferred_core);

// The kernel set OpenBLAS runs ("SkylakeX"), as openblas_get_corename() reports it.
std::string blas_core_name();

// Sets and reads the number of threads OpenBLAS uses inside one matrix product. One thread also
// stops the worker threads OpenBLAS started when it loaded (one fewer than the cores, unless
// OPENBLAS_NUM_THREADS=1 was set), which would otherwise spin (sched_yield) for a while after
// the start and after every product.
void set_blas_threads(int threads);
int blas_threads();

}  // namespace minimt
