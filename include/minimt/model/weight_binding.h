// Binding tensor names to the engine's typed weight views. This is the only place that spells
// tensor names: it checks every expected name and shape, and refuses tensors the format does
// not list.
#pragma once

#include <functional>
#include <string>

#include "minimt/engine/compute_type.h"
#include "minimt/engine/packed_weights.h"
#include "minimt/engine/weights.h"
#include "minimt/model/config.h"
#include "minimt/model/tensor.h"

namespace minimt {

struct BindOptions {
  // The Linear weights an I8 file holds: with int8 compute they stay int8 only (`weight` null,
  // the engine packs weight_int8); otherwise they are dequantized (q * scale) to float32.
  ComputeType compute_type = ComputeType::kFloat32;
  // The caller packs the Linear weights straight from the file (linear_weight_sources): F16,
  // BF16 and I8 ones are then neither widened nor dequantized (`weight` null until packed).
  bool pack_from_file = false;
};

// Looks up every tensor the format (v1 or v2) expects for `config`, checking its shape; `file` is
// named in errors (the safetensors file or config.json for inline weights).
ModelWeights bind_weights(const ModelConfig& config, const TensorStore& store,
                          const std::string& file, const BindOptions& options = {});

// Calls fn(prefix, layer, out, in) for every Linear of `weights` that has tensors of its own
// (PREFIX.weight, and PREFIX.weight_scale when that is I8): the attention projections, fc1,
// fc1_linear (gated feed-forward), fc2, and the output projection ("lm_head") when it is not
// tied to the embeddings.
void for_each_named_linear(
    const ModelConfig& config, ModelWeights& weights,
    const std::function<void(const std::string& prefix, Linear& layer, int out, int in)>& fn);

// Where each named Linear's weight lies in `store` (bound by bind_weights from it), for packing
// the layers straight from the file.
WeightSources linear_weight_sources(const ModelConfig& config, ModelWeights& weights,
                                    const TensorStore& store);

}  // namespace minimt
