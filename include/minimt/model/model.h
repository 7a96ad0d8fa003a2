// Model: a loaded model directory (config, checked weights, tokenizers). The only code that
// reads model files.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "minimt/engine/attribution.h"
#include "minimt/engine/compute_type.h"
#include "minimt/engine/low_precision_weights.h"
#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/packed_weights.h"
#include "minimt/engine/weights.h"
#include "minimt/model/config.h"
#include "minimt/model/tensor.h"
#include "minimt/model/tokenizer.h"

namespace minimt {

// How to load a model: choices the caller makes (the CLI reads them from its options and
// environment; the library reads no environment).
struct LoadOptions {
  // Who computes the Linear layers; the default is the fastest this CPU runs.
  LinearKernel kernel = best_linear_kernel();
  // The number format of the Linear layers' products (float32, int8 or bf16). Unset: int8 for a
  // file that holds int8 weights (written by minimt convert), float32 for any other.
  std::optional<ComputeType> compute_type;
  // Who computes the int8 products (all give the same results); the default is the fastest.
  Int8Kernel int8_kernel = best_int8_kernel();
};

struct ModelFile {
  std::string path;
  long long bytes = 0;
};

class Model {
 public:
  // Loads and validates `dir`; throws ModelError naming the file and the key or tensor.
  // Throws Error when options.kernel does not run on this CPU.
  static std::shared_ptr<const Model> load(const std::string& dir, const LoadOptions& options = {});

  const std::string& directory() const { return directory_; }
  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const Tokenizer& source_tokenizer() const { return *source_; }
  const Tokenizer& target_tokenizer() const { return *target_; }
  const std::vector<ModelFile>& files() const { return files_; }
  // Bytes of weights packed for minimt's own matrix kernel (0 when OpenBLAS does every product).
  size_t packed_bytes() const { return packed_.bytes() + low_precision_.bytes(); }
  LinearKernel linear_kernel() const { return kernel_; }
  ComputeType compute_type() const { return compute_type_; }
  // What runs without --compute-type: int8 for a file with I8 weights (minimt convert), else
  // float32.
  ComputeType default_compute_type() const { return default_compute_type_; }
  Int8Kernel int8_kernel() const { return int8_kernel_; }
  // The model's one Attributor, made on first use (its float32 copies of weights held only
  // packed cost memory only when attribution is asked for); thread-safe.
  const Attributor& attributor() const;

 private:
  Model() = default;
  std::string directory_;
  ModelConfig config_;
  TensorStore store_;
  ModelWeights weights_;
  std::unique_ptr<Tokenizer> source_, target_;
  std::vector<ModelFile> files_;
  LinearKernel kernel_ = LinearKernel::kOpenblas;
  PackedWeights packed_;
  ComputeType compute_type_ = ComputeType::kFloat32;
  ComputeType default_compute_type_ = ComputeType::kFloat32;
  Int8Kernel int8_kernel_ = Int8Kernel::kGeneric;
  LowPrecisionWeights low_precision_;

  std::vector<float> sinusoidal_table_;  // [max_positions, d_model] when small enough
  mutable std::once_flag attributor_made_;
  mutable std::unique_ptr<Attributor> attributor_;

  void pack_linear_weights(const LoadOptions& options, const WeightSources& sources);
  void tabulate_sinusoidal_positions();
};

}  // namespace minimt
