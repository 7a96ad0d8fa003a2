#include "minimt/model/model.h"

#include <sys/stat.h>

#include "minimt/base/error.h"
#include "minimt/engine/ops.h"
#include "minimt/model/paths.h"
#include "minimt/model/safetensors.h"
#include "minimt/model/weight_binding.h"

namespace minimt {
namespace {

// The tokenizer reads at most this much (tokenizer.cpp); said here first, naming the config key.
constexpr long long kMaxTokenizerBytes = 64ll << 20;

// side is "source" or "target": the file is named by key 'tokenizer.<side>', and its piece count
// must equal key '<side>_vocab_size' plus the side's unknown_pieces (format v2), which it reads
// as unk.
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& dir, const std::string& relative,
                                          int expected_size, int unknown_pieces, int unk,
                                          const std::string& config_file, const std::string& side) {
  const std::string key = "config.json key 'tokenizer." + side + "'";
  const std::string path = model_file(dir, relative, key);
  if (file_size(path) > kMaxTokenizerBytes)
    throw ModelError(path, "is " + std::to_string(file_size(path)) + " bytes, more than the " +
                               std::to_string(kMaxTokenizerBytes) +
                               " bytes (64 MiB) minimt reads as a SentencePiece model (named by " +
                               key + ")");
  auto tokenizer = std::make_unique<Tokenizer>(path);
  if (unknown_pieces == 0 && tokenizer->size() != expected_size)
    throw ModelError(config_file, "key '" + side + "_vocab_size' is " +
                                      std::to_string(expected_size) + " but " + path + " has " +
                                      std::to_string(tokenizer->size()) + " pieces");
  if (static_cast<long long>(tokenizer->size()) !=
      static_cast<long long>(expected_size) + unknown_pieces)
    throw ModelError(config_file, "key '" + side + "_vocab_size' is " +
                                      std::to_string(expected_size) + " and 'unknown_pieces." +
                                      side + "' is " + std::to_string(unknown_pieces) + " but " +
                                      path + " has " + std::to_string(tokenizer->size()) +
                                      " pieces (their sum is needed)");
  if (unknown_pieces > 0) tokenizer->read_as_unknown_from(expected_size, unk);
  return tokenizer;
}

size_t bytes_per_value(WeightSource::Format format) {
  switch (format) {
    case WeightSource::Format::kF32:
      return 4;
    case WeightSource::Format::kF16:
    case WeightSource::Format::kBf16:
      return 2;
    case WeightSource::Format::kI8:
      return 1;
  }
  return 4;
}

}  // namespace

void Model::tabulate_sinusoidal_positions() {
  // The table replaces a sin and a cos per element at every decoder step; past this size it
  // would cost the start-up more than it saves, and positions are computed on the fly.
  constexpr long long kMaxTableFloats = 1 << 18;
  const ModelConfig& c = config_;
  const bool split = c.positions == Positions::kSinusoidalSplit;
  const long long rows = static_cast<long long>(c.max_positions) + c.position_offset;
  if ((c.positions != Positions::kSinusoidal && !split) || rows * c.d_model > kMaxTableFloats)
    return;
  sinusoidal_table_.resize(static_cast<size_t>(rows) * c.d_model);  // [rows, d]
  if (split) {
    std::fill(sinusoidal_table_.begin(), sinusoidal_table_.end(), 0.0f);
    for (int position = 0; position < rows; ++position)
      ops::add_sinusoidal_split_position(
          position, c.d_model,
          sinusoidal_table_.data() + static_cast<size_t>(position) * c.d_model);
  } else {
    ops::sinusoidal_table(static_cast<int>(rows), c.d_model, sinusoidal_table_.data());
  }
  weights_.source_positions = weights_.target_positions = sinusoidal_table_.data();
}

void Model::pack_linear_weights(const LoadOptions& options, const WeightSources& sources) {
  const LinearKernel kernel = options.kernel;
  if (!linear_kernel_supported(kernel))
    throw Error("the " + to_string(kernel) + " kernel does not run on this CPU (it runs " +
                to_string(best_linear_kernel()) + ")");
  kernel_ = kernel;
  compute_type_ = options.compute_type.value_or(ComputeType::kFloat32);
  int8_kernel_ = options.int8_kernel;
  std::vector<Linear*> layers;
  if (compute_type_ == ComputeType::kFloat32) {
    packed_ = pack_linear_layers(weights_, kernel, sources);
    layers = packed_.layers;
  } else {
    low_precision_ = pack_low_precision_layers(weights_, compute_type_, int8_kernel_, sources);
    layers = low_precision_.layers;
  }
  // The packed copy replaces the mapped original, so resident memory stays near the file
  // size. A tied output projection is also the embedding table, which is still read.
  for (const Linear* layer : layers) {
    if (layer == &weights_.output && config_.tie_output) continue;
    const size_t count = static_cast<size_t>(layer->out) * layer->in;
    auto source = sources.find(layer);
    if (source != sources.end())
      store_.release(source->second.data, count * bytes_per_value(source->second.format));
    else if (layer->weight_int8)
      store_.release(layer->weight_int8, count);
    else
      store_.release(layer->weight, count * sizeof(float));
  }
}

std::shared_ptr<const Model> Model::load(const std::string& dir, const LoadOptions& options) {
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw ModelError(dir, "is not a model directory");
  std::shared_ptr<Model> model(new Model());
  model->directory_ = dir;
  const std::string config_path = model_file(dir, "config.json", "");
  model->config_ = ModelConfig::load(config_path);
  const ModelConfig& c = model->config_;
  model->files_.push_back({config_path, file_size(config_path)});

  std::string weights_file = config_path;
  if (c.inline_weights.is_null()) {
    weights_file = model_file(dir, c.weights_file, "config.json key 'weights'");
    read_safetensors(weights_file, model->store_);
    model->files_.push_back({weights_file, file_size(weights_file)});
  } else {
    read_inline_tensors(c.inline_weights, config_path, model->store_);
  }
  model->default_compute_type_ =
      model->store_.holds(DType::kI8) ? ComputeType::kInt8 : ComputeType::kFloat32;
  LoadOptions resolved = options;
  if (!resolved.compute_type) resolved.compute_type = model->default_compute_type_;
  const ComputeType compute_type = *resolved.compute_type;
  // Whatever packs the Linear weights (minimt's float32 kernel, int8, bf16) reads each one
  // straight from the mapped file (F16, BF16 and I8 ones widened a panel or a row at a time):
  // no float32 copy of them is ever made.
  BindOptions bind_options;
  bind_options.compute_type = compute_type;
  bind_options.pack_from_file =
      compute_type != ComputeType::kFloat32 || options.kernel != LinearKernel::kOpenblas;
  model->weights_ = bind_weights(c, model->store_, weights_file, bind_options);
  model->pack_linear_weights(resolved,
                             bind_options.pack_from_file
                                 ? linear_weight_sources(c, model->weights_, model->store_)
                                 : WeightSources{});
  model->tabulate_sinusoidal_positions();

  const std::string source_path = join_path(dir, c.source_tokenizer);
  const std::string target_path = join_path(dir, c.target_tokenizer);
  model->source_ = load_tokenizer(dir, c.source_tokenizer, c.source_vocab_size,
                                  c.source_unknown_pieces, c.special.unk, config_path, "source");
  model->target_ = load_tokenizer(dir, c.target_tokenizer, c.target_vocab_size,
                                  c.target_unknown_pieces, c.special.unk, config_path, "target");
  model->files_.push_back({source_path, file_size(source_path)});
  if (target_path != source_path) model->files_.push_back({target_path, file_size(target_path)});
  return model;
}

const Attributor& Model::attributor() const {
  std::call_once(attributor_made_,
                 [this] { attributor_ = std::make_unique<Attributor>(config_, weights_); });
  return *attributor_;
}

}  // namespace minimt
