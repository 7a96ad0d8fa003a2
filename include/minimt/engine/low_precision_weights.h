// Packing a model's Linear layers for int8 or bf16 compute, once, at load.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "minimt/engine/bf16_gemm.h"
#include "minimt/engine/compute_type.h"
#include "minimt/engine/int8_gemm.h"
#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/packed_weights.h"
#include "minimt/engine/weights.h"

namespace minimt {

struct LowPrecisionWeights {
  std::unique_ptr<PackedArena> arena;  // storage of every matrix
  std::deque<Int8Matrix> int8;         // deque: adding one never moves the others
  std::deque<Bf16Matrix> bf16;
  std::vector<Linear*> layers;  // the Linears that now point at a packed copy
  size_t bytes() const;
};

// Quantizes (int8) or rounds (bf16) every Linear of `weights` and points each one's `int8` or
// `bf16` at its copy; an int8 layer read from an int8 file (weight_int8) is packed as it is, and
// a layer listed in `sources` is read from there one row at a time (a layer whose `weight` is
// null must be listed or hold weight_int8). Throws Error when the CPU cannot run `type`. The
// caller keeps the result alive.
LowPrecisionWeights pack_low_precision_layers(ModelWeights& weights, ComputeType type,
                                              Int8Kernel int8_kernel,
                                              const WeightSources& sources = {});

}  // namespace minimt
