// The registry's functions for the engine's own use (kernel_registry.h is the public side):
// which function computes a job for a chosen kernel.
#pragma once

#include <vector>

#include "engine/kernels/attention_kernels.h"
#include "engine/kernels/int8_kernels.h"
#include "engine/kernels/row_kernels.h"
#include "minimt/engine/kernel_registry.h"
#include "minimt/engine/packed_gemm.h"

namespace minimt::kernels {

using PackedLinear = void (*)(const PackedMatrix& weight, const float* bias, const float* x, int m,
                              int ldx, float* y);
using Int8Linear = void (*)(const Int8Matrix& weight, const float* bias, const QuantizedRows& x,
                            float* y);

using PackPanel = void (*)(const float* rows, int columns, int k, float* out);
// The fastest panel packer this CPU runs (every one writes the same floats).
PackPanel pack_panel_function();

// The function behind a kernel the CPU supports (callers check linear_kernel_supported first;
// kOpenblas has none).
PackedLinear packed_linear_function(LinearKernel kernel);
Int8Linear int8_linear_function(Int8Kernel kernel);

// The fastest set this CPU runs (chosen once), and every set it runs, fastest first (for tests).
const RowKernels& row_kernels();
std::vector<RowKernels> supported_row_kernels();
const AttentionKernels& attention_kernels();
std::vector<AttentionKernels> supported_attention_kernels();

}  // namespace minimt::kernels
