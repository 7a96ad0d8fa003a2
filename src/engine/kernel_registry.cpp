// The kernel registry (kernel_registry.h): one table of every kernel, what it needs from the CPU
// and the function that runs it; every choice of a kernel is made here.
#include "minimt/engine/kernel_registry.h"

#include <sstream>

#include "engine/kernels/bf16_kernels.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/packed_kernels.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

// Whether the CPU reports one feature, spelt as in /proc/cpuinfo.
bool cpu_has(const std::string& feature) {
#if defined(__x86_64__)
  __builtin_cpu_init();  // GCC's builtin takes only a literal, hence the list
  if (feature == "avx512f") return __builtin_cpu_supports("avx512f");
  if (feature == "avx512bw") return __builtin_cpu_supports("avx512bw");
  if (feature == "avx512vl") return __builtin_cpu_supports("avx512vl");
  if (feature == "avx512vnni") return __builtin_cpu_supports("avx512vnni");
  if (feature == "avx512bf16") return __builtin_cpu_supports("avx512bf16");
  if (feature == "avx2") return __builtin_cpu_supports("avx2");
  if (feature == "fma") return __builtin_cpu_supports("fma");
#endif
  (void)feature;
  return false;
}

bool cpu_has_all(const std::string& needs) {
  std::istringstream words(needs);
  for (std::string feature; words >> feature;)
    if (!cpu_has(feature)) return false;
  return true;
}

// What each instruction set's kernels need.
constexpr const char* kAvx512 = "avx512f";
constexpr const char* kAvx2 = "avx2 fma";
constexpr const char* kVnni = "avx512vnni avx512bw avx512vl";
constexpr const char* kBf16 = "avx512bf16 avx512bw";

struct LinearEntry {
  LinearKernel kernel;
  const char* needs;
  kernels::PackedLinear run;  // null for openblas
};

// Fastest first.
const LinearEntry kLinear[] = {
#if defined(__x86_64__)
    {LinearKernel::kAvx512, kAvx512, kernels::packed_linear_avx512},
    {LinearKernel::kAvx2, kAvx2, kernels::packed_linear_avx2},
#endif
    {LinearKernel::kGeneric, "", kernels::packed_linear_generic},
    {LinearKernel::kOpenblas, "", nullptr},
};

struct Int8Entry {
  Int8Kernel kernel;
  const char* needs;
  kernels::Int8Linear run;
};

const Int8Entry kInt8[] = {
#if defined(__x86_64__)
    {Int8Kernel::kAvx512Vnni, kVnni, kernels::int8_linear_vnni},
    {Int8Kernel::kAvx2, kAvx2, kernels::int8_linear_avx2},
#endif
    {Int8Kernel::kGeneric, "", kernels::int8_linear_generic},
};

struct RowEntry {
  const char* needs;
  kernels::RowKernels kernels;
};

const RowEntry kRows[] = {
#if defined(__x86_64__)
    {kAvx512,
     {"avx512", kernels::row_max_avx512, kernels::log_sum_exp_avx512,
      kernels::layer_norm_row_avx512, kernels::rms_norm_row_avx512, kernels::argmax_avx512,
      kernels::first_above_avx512}},
    {kAvx2,
     {"avx2", kernels::row_max_avx2, kernels::log_sum_exp_avx2, kernels::layer_norm_row_avx2,
      kernels::rms_norm_row_avx2, kernels::argmax_generic, kernels::first_above_generic}},
#endif
    {"",
     {"generic", kernels::row_max_generic, kernels::log_sum_exp_generic,
      kernels::layer_norm_row_generic, kernels::rms_norm_row_generic, kernels::argmax_generic,
      kernels::first_above_generic}},
};

struct AttentionEntry {
  const char* needs;
  kernels::AttentionKernels kernels;
};

const AttentionEntry kAttention[] = {
#if defined(__x86_64__)
    {kAvx512,
     {"avx512", kernels::attention_scores_avx512, kernels::attention_context_avx512,
      kernels::attention_scores_heads_avx512, kernels::attention_context_heads_avx512}},
    {kAvx2,
     {"avx2", kernels::attention_scores_avx2, kernels::attention_context_avx2, nullptr, nullptr}},
#endif
    {"",
     {"generic", kernels::attention_scores_generic, kernels::attention_context_generic, nullptr,
      nullptr}},
};

const LinearEntry& entry_of(LinearKernel kernel) {
  for (const LinearEntry& entry : kLinear)
    if (entry.kernel == kernel) return entry;
  throw Error("the " + to_string(kernel) + " kernel is not built for this CPU architecture");
}

const Int8Entry& entry_of(Int8Kernel kernel) {
  for (const Int8Entry& entry : kInt8)
    if (entry.kernel == kernel) return entry;
  throw Error("the " + to_string(kernel) + " int8 kernel is not built for this CPU architecture");
}

// Every supported entry's kernels, fastest first.
template <typename Entry, size_t N>
auto supported(const Entry (&table)[N]) {
  std::vector<decltype(table[0].kernels)> sets;
  for (const Entry& entry : table)
    if (cpu_has_all(entry.needs)) sets.push_back(entry.kernels);
  return sets;
}

}  // namespace

std::string to_string(KernelJob job) {
  switch (job) {
    case KernelJob::kLinear:
      return "linear";
    case KernelJob::kInt8:
      return "int8";
    case KernelJob::kBf16:
      return "bf16";
    case KernelJob::kRows:
      return "rows";
    case KernelJob::kAttention:
      return "attention";
  }
  return "unknown";
}

std::string to_string(LinearKernel kernel) {
  switch (kernel) {
    case LinearKernel::kOpenblas:
      return "openblas";
    case LinearKernel::kGeneric:
      return "generic";
    case LinearKernel::kAvx2:
      return "avx2";
    case LinearKernel::kAvx512:
      return "avx512";
  }
  return "unknown";
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

std::vector<KernelEntry> kernel_list() {
  std::vector<KernelEntry> list;
  for (const LinearEntry& e : kLinear)
    list.push_back({KernelJob::kLinear, to_string(e.kernel), e.needs, cpu_has_all(e.needs)});
  for (const Int8Entry& e : kInt8)
    list.push_back({KernelJob::kInt8, to_string(e.kernel), e.needs, cpu_has_all(e.needs)});
#if defined(__x86_64__)
  list.push_back({KernelJob::kBf16, "avx512-bf16", kBf16, cpu_has_all(kBf16)});
#endif
  for (const RowEntry& e : kRows)
    list.push_back({KernelJob::kRows, e.kernels.name, e.needs, cpu_has_all(e.needs)});
  for (const AttentionEntry& e : kAttention)
    list.push_back({KernelJob::kAttention, e.kernels.name, e.needs, cpu_has_all(e.needs)});
  return list;
}

LinearKernel parse_linear_kernel(const std::string& word) {
  for (LinearKernel kernel : {LinearKernel::kOpenblas, LinearKernel::kGeneric, LinearKernel::kAvx2,
                              LinearKernel::kAvx512})
    if (word == to_string(kernel)) return kernel;
  throw Error("unknown kernel '" + word + "' (expected avx512, avx2, generic or openblas)");
}

LinearKernel choose_linear_kernel(const std::string& word) {
  return word.empty() || word == "auto" ? best_linear_kernel() : parse_linear_kernel(word);
}

bool linear_kernel_supported(LinearKernel kernel) {
  for (const LinearEntry& entry : kLinear)
    if (entry.kernel == kernel) return cpu_has_all(entry.needs);
  return false;
}

LinearKernel best_linear_kernel() {
  for (LinearKernel kernel : {LinearKernel::kAvx512, LinearKernel::kAvx2})
    if (linear_kernel_supported(kernel)) return kernel;
#if defined(__x86_64__)
  return LinearKernel::kOpenblas;
#else
  return LinearKernel::kGeneric;
#endif
}

bool int8_kernel_supported(Int8Kernel kernel) {
  for (const Int8Entry& entry : kInt8)
    if (entry.kernel == kernel) return cpu_has_all(entry.needs);
  return false;
}

Int8Kernel best_int8_kernel() {
  for (const Int8Entry& entry : kInt8)
    if (cpu_has_all(entry.needs)) return entry.kernel;
  return Int8Kernel::kGeneric;
}

Int8Kernel int8_kernel_matching(LinearKernel kernel) {
  if (kernel == LinearKernel::kAvx512 && int8_kernel_supported(Int8Kernel::kAvx512Vnni))
    return Int8Kernel::kAvx512Vnni;
  if ((kernel == LinearKernel::kAvx512 || kernel == LinearKernel::kAvx2) &&
      int8_kernel_supported(Int8Kernel::kAvx2))
    return Int8Kernel::kAvx2;
  return Int8Kernel::kGeneric;
}

bool bf16_kernel_supported() {
#if defined(__x86_64__)
  return cpu_has_all(kBf16);
#else
  return false;
#endif
}

std::string row_kernel_name() {
  return kernels::row_kernels().name;
}

std::string attention_kernel_name() {
  return kernels::attention_kernels().name;
}

namespace kernels {

PackPanel pack_panel_function() {
#if defined(__x86_64__)
  static const PackPanel best = cpu_has_all(kAvx2) ? pack_panel_avx2 : pack_panel_generic;
  return best;
#else
  return pack_panel_generic;
#endif
}

PackedLinear packed_linear_function(LinearKernel kernel) {
  return entry_of(kernel).run;
}

Int8Linear int8_linear_function(Int8Kernel kernel) {
  return entry_of(kernel).run;
}

std::vector<RowKernels> supported_row_kernels() {
  return supported(kRows);
}

const RowKernels& row_kernels() {
  static const RowKernels best = supported_row_kernels().front();
  return best;
}

std::vector<AttentionKernels> supported_attention_kernels() {
  return supported(kAttention);
}

const AttentionKernels& attention_kernels() {
  static const AttentionKernels best = supported_attention_kernels().front();
  return best;
}

}  // namespace kernels
}  // namespace minimt
