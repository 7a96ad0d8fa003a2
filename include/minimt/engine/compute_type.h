// Compute types: the number format the Linear layers multiply in (CTranslate2's words).
//   float32  weights and activations in float (the default; exactly as minimt always ran)
//   int8     weights quantized per output channel, activations per row, products in int32
//   bf16     weights and activations rounded to bfloat16, products summed in float
// Everything else (embeddings, layer norm, softmax, the attention products) stays float32.
#pragma once

#include <string>

#include "minimt/engine/kernel_registry.h"

namespace minimt {

enum class ComputeType { kFloat32, kInt8, kBf16 };

std::string to_string(ComputeType type);
// "float32", "int8" or "bf16"; throws Error naming the accepted words otherwise.
ComputeType parse_compute_type(const std::string& word);
// Empty when this CPU runs `type`; otherwise one sentence saying what it lacks.
std::string compute_type_unsupported_reason(ComputeType type);

}  // namespace minimt
