#include "minimt/engine/low_precision_weights.h"

#include <algorithm>
#include <functional>

#include "minimt/base/error.h"

namespace minimt {

size_t LowPrecisionWeights::bytes() const {
  size_t total = 0;
  for (const auto& matrix : int8) total += matrix.bytes();
  for (const auto& matrix : bf16) total += matrix.bytes();
  return total;
}

LowPrecisionWeights pack_low_precision_layers(ModelWeights& weights, ComputeType type,
                                              Int8Kernel int8_kernel,
                                              const WeightSources& sources) {
  if (type == ComputeType::kFloat32) throw Error("float32 weights are not packed here");
  if (const std::string reason = compute_type_unsupported_reason(type); !reason.empty())
    throw Error(reason);
  LowPrecisionWeights packed;
  packed.layers = model_linears(weights);
  auto bytes_needed = [type](const Linear* layer) {
    return type == ComputeType::kInt8 ? Int8Matrix::bytes_needed(layer->out, layer->in)
                                      : Bf16Matrix::bytes_needed(layer->out, layer->in);
  };
  size_t bytes = 0;
  for (const Linear* layer : packed.layers) bytes += bytes_needed(layer);
  packed.arena = std::make_unique<PackedArena>((bytes + sizeof(float) - 1) / sizeof(float));
  auto* next = reinterpret_cast<uint8_t*>(packed.arena->data());
  for (Linear* layer : packed.layers) {
    const int k = layer->in;
    std::function<void(int, float*)> rows = [layer, k](int c, float* out) {
      std::copy(layer->weight + static_cast<size_t>(c) * k,
                layer->weight + static_cast<size_t>(c + 1) * k, out);
    };
    if (auto source = sources.find(layer); source != sources.end())
      rows = [&weight = source->second, k](int c, float* out) {
        widen_weight_rows(weight, c, 1, k, out);
      };
    else if (!layer->weight && !layer->weight_int8)
      throw Error("a Linear layer has neither weights nor a source to pack from");
    if (type == ComputeType::kInt8) {
      packed.int8.push_back(layer->weight_int8
                                ? Int8Matrix::from_int8(layer->weight_int8, layer->weight_scale,
                                                        layer->out, k, next, int8_kernel)
                                : Int8Matrix::from_rows(rows, layer->out, k, next, int8_kernel));
      layer->int8 = &packed.int8.back();
    } else {
      packed.bf16.emplace_back(rows, layer->out, k, next);
      layer->bf16 = &packed.bf16.back();
    }
    next += bytes_needed(layer);
  }
  return packed;
}

}  // namespace minimt
