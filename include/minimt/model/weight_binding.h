// Binding tensor names to the engine's typed weight views. This is the only place that spells
// tensor names: it checks every expected name and shape, and refuses tensors the format does
// not list.
#pragma once

#include <string>

#include "minimt/engine/weights.h"
#include "minimt/model/config.h"
#include "minimt/model/tensor.h"

namespace minimt {

// Looks up every tensor format v1 expects for `config`, checking its shape; `file` is named in
// errors (the safetensors file or config.json for inline weights).
ModelWeights bind_weights(const ModelConfig& config, const TensorStore& store,
                          const std::string& file);

}  // namespace minimt
