// Model: a loaded model directory (config, checked weights, tokenizers). The only code that
// reads model files.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "minimt/config.h"
#include "minimt/packed_gemm.h"
#include "minimt/tensor.h"
#include "minimt/tokenizer.h"
#include "minimt/weights.h"

namespace minimt {

struct ModelFile {
  std::string path;
  long long bytes = 0;
};

class Model {
 public:
  // Loads and validates `dir`; throws ModelError naming the file and the key or tensor.
  static std::shared_ptr<const Model> load(const std::string& dir);

  const std::string& directory() const { return directory_; }
  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const Tokenizer& source_tokenizer() const { return *source_; }
  const Tokenizer& target_tokenizer() const { return *target_; }
  const std::vector<ModelFile>& files() const { return files_; }
  // Bytes of weights packed for minimt's own matrix kernel (0 when OpenBLAS does every product).
  size_t packed_bytes() const;

 private:
  Model() = default;
  std::string directory_;
  ModelConfig config_;
  TensorStore store_;
  ModelWeights weights_;
  std::unique_ptr<Tokenizer> source_, target_;
  std::vector<ModelFile> files_;
  std::unique_ptr<PackedArena> packed_arena_;  // storage of every packed matrix
  std::deque<PackedMatrix> packed_;            // deque: adding one never moves the others

  std::vector<float> sinusoidal_table_;  // [max_positions, d_model] when small enough

  void pack_linear_weights();
  void tabulate_sinusoidal_positions();
};

}  // namespace minimt
