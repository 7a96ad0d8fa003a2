#include "minimt/model/model_converter.h"

#include <sys/stat.h>

#include <deque>
#include <fstream>
#include <set>
#include <vector>

#include "minimt/base/error.h"
#include "minimt/engine/quantize.h"
#include "minimt/model/config.h"
#include "minimt/model/model.h"
#include "minimt/model/paths.h"
#include "minimt/model/safetensors.h"
#include "minimt/model/safetensors_writer.h"
#include "minimt/model/weight_binding.h"

namespace minimt {
namespace {

constexpr size_t kMaxConfigBytes = 8u << 20;  // as ModelConfig::load reads
const char* const kWeightsName = "model.safetensors";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw IoError(path + ": cannot write the file");
}

// Creates the directories of `relative` (a checked path without '..') under `dir`.
void make_parents(const std::string& dir, const std::string& relative) {
  for (size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    const std::string path = join_path(dir, relative.substr(0, slash));
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
      throw IoError(path + ": cannot create the directory");
  }
}

void copy_tokenizer(const std::string& in_dir, const std::string& out_dir,
                    const std::string& relative) {
  const std::string out = join_path(out_dir, relative);
  if (file_size(out) >= 0) return;  // source and target share one file
  make_parents(out_dir, relative);
  write_text(out, read_regular_file(model_file(in_dir, relative, ""), 64u << 20));
}

// The tensors to write and the buffers they point into.
struct Plan {
  std::vector<TensorToWrite> tensors;
  std::deque<std::vector<int8_t>> values;
  std::deque<std::vector<float>> scales;
  ConversionSummary summary;
};

void plan_linear(const std::string& prefix, const Linear& layer, ComputeType target, Plan& plan) {
  const Shape shape{layer.out, layer.in};
  const size_t count = static_cast<size_t>(layer.out) * layer.in;
  plan.summary.linear_layers += 1;
  plan.summary.linear_float_bytes += count * sizeof(float);
  if (target == ComputeType::kFloat32) {
    plan.tensors.push_back({prefix + ".weight", DType::kF32, shape, layer.weight});
    plan.summary.linear_bytes_out += count * sizeof(float);
    return;
  }
  const int8_t* q = layer.weight_int8;
  const float* scale = layer.weight_scale;
  if (!q) {  // a float weight: quantized as the int8 compute type quantizes it at load
    plan.values.emplace_back(count);
    plan.scales.emplace_back(static_cast<size_t>(layer.out));
    quantize_rows_int8(layer.weight, layer.out, layer.in, plan.values.back().data(),
                       plan.scales.back().data());
    q = plan.values.back().data();
    scale = plan.scales.back().data();
  }
  plan.tensors.push_back({prefix + ".weight", DType::kI8, shape, q});
  plan.tensors.push_back({prefix + ".weight_scale", DType::kF32, Shape{layer.out}, scale});
  plan.summary.linear_bytes_out += count + layer.out * sizeof(float);
}

}  // namespace

ConversionSummary convert_model(const std::string& in_dir, const std::string& out_dir,
                                ComputeType target) {
  if (target == ComputeType::kBf16)
    throw Error("minimt convert writes int8 or float32 weights, not bf16");
  // Everything the input holds is checked first, tokenizers included, as translate loads it.
  LoadOptions load;
  load.kernel = LinearKernel::kOpenblas;  // packs nothing: only the checks
  load.compute_type = ComputeType::kFloat32;
  Model::load(in_dir, load);

  const std::string config_path = model_file(in_dir, "config.json", "");
  const ModelConfig c = ModelConfig::load(config_path);
  const std::string config_text = read_regular_file(config_path, kMaxConfigBytes);
  auto config = nlohmann::ordered_json::parse(config_text);  // valid: load() parsed it

  Plan plan;
  TensorStore store;
  std::string weights_file = config_path;
  if (c.inline_weights.is_null()) {
    weights_file = model_file(in_dir, c.weights_file, "config.json key 'weights'");
    read_safetensors(weights_file, store);
  } else {
    read_inline_tensors(c.inline_weights, config_path, store);
  }
  plan.summary.weights_bytes_in = static_cast<size_t>(file_size(weights_file));
  ModelWeights weights = bind_weights(c, store, weights_file);  // float32: I8 dequantized

  std::set<std::string> written;
  for_each_named_linear(c, weights, [&](const std::string& prefix, Linear& layer, int, int) {
    plan_linear(prefix, layer, target, plan);
    written.insert({prefix + ".weight", prefix + ".weight_scale"});
  });
  for (const auto& [name, view] : store.all())
    if (!written.count(name)) plan.tensors.push_back({name, view.dtype, view.shape, view.raw});

  plan.summary.weights_bytes_out = write_safetensors(
      join_path(out_dir, kWeightsName), plan.tensors,
      {{"format", "pt"}, {"producer", "minimt convert"}, {"compute_type", to_string(target)}});
  copy_tokenizer(in_dir, out_dir, c.source_tokenizer);
  copy_tokenizer(in_dir, out_dir, c.target_tokenizer);
  config["weights"] = kWeightsName;
  write_text(join_path(out_dir, "config.json"), config.dump(1) + "\n");
  return plan.summary;
}

}  // namespace minimt
