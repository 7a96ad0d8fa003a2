#include "minimt/engine/compute_type.h"

#include "minimt/base/error.h"

namespace minimt {

std::string to_string(ComputeType type) {
  switch (type) {
    case ComputeType::kFloat32:
      return "float32";
    case ComputeType::kInt8:
      return "int8";
    case ComputeType::kBf16:
      return "bf16";
  }
  return "unknown";
}

ComputeType parse_compute_type(const std::string& word) {
  for (ComputeType type : {ComputeType::kFloat32, ComputeType::kInt8, ComputeType::kBf16})
    if (word == to_string(type)) return type;
  throw Error("unknown compute type '" + word + "' (expected float32, int8 or bf16)");
}

std::string compute_type_unsupported_reason(ComputeType type) {
  if (type == ComputeType::kBf16 && !bf16_kernel_supported())
    return "bf16 compute needs a CPU with AVX512_BF16 (the vdpbf16ps instruction), and this "
           "one has none; use --compute-type float32 or int8";
  return "";
}

}  // namespace minimt
