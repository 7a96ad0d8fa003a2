#include "minimt/engine/compute_type.h"

#include "minimt/base/error.h"

namespace minimt {
namespace {

bool cpu_has(const char* feature) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (std::string(feature) == "avx512vnni") return __builtin_cpu_supports("avx512vnni") != 0;
  if (std::string(feature) == "avx512bf16") return __builtin_cpu_supports("avx512bf16") != 0;
  if (std::string(feature) == "avx512bw") return __builtin_cpu_supports("avx512bw") != 0;
  if (std::string(feature) == "avx2") return __builtin_cpu_supports("avx2") != 0;
  if (std::string(feature) == "fma") return __builtin_cpu_supports("fma") != 0;
#endif
  (void)feature;
  return false;
}

}  // namespace

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
  if (type == ComputeType::kBf16 && !(cpu_has("avx512bf16") && cpu_has("avx512bw")))
    return "bf16 compute needs a CPU with AVX512_BF16 (the vdpbf16ps instruction), and this "
           "one has none; use --compute-type float32 or int8";
  return "";
}

std::string to_string(Int8Kernel kernel) {
  switch (kernel) {
    case Int8Kernel::kGeneric:
      return "generic";
    case Int8Kernel::kAvx2:
      return "avx2";
    case Int8Kernel::kAvx512Vnni:
      return "avx512-vnni";
  }
  return "unknown";
}

bool int8_kernel_supported(Int8Kernel kernel) {
  if (kernel == Int8Kernel::kAvx512Vnni) return cpu_has("avx512vnni") && cpu_has("avx512bw");
  if (kernel == Int8Kernel::kAvx2) return cpu_has("avx2") && cpu_has("fma");
  return true;
}

Int8Kernel int8_kernel_matching(LinearKernel kernel) {
  if (kernel == LinearKernel::kAvx512 && int8_kernel_supported(Int8Kernel::kAvx512Vnni))
    return Int8Kernel::kAvx512Vnni;
  if ((kernel == LinearKernel::kAvx512 || kernel == LinearKernel::kAvx2) &&
      int8_kernel_supported(Int8Kernel::kAvx2))
    return Int8Kernel::kAvx2;
  return Int8Kernel::kGeneric;
}

Int8Kernel best_int8_kernel() {
  for (Int8Kernel kernel : {Int8Kernel::kAvx512Vnni, Int8Kernel::kAvx2})
    if (int8_kernel_supported(kernel)) return kernel;
  return Int8Kernel::kGeneric;
}

}  // namespace minimt
