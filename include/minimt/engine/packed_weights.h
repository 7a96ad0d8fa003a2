// Packing a model's Linear layers for minimt's own kernel, once, at load.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/weights.h"

namespace minimt {

// Every Linear layer of a model: attention projections, feed-forward layers (fc1_linear too,
// when gated) and the output projection, in a fixed order (what every compute type packs).
std::vector<Linear*> model_linears(ModelWeights& weights);

// The packed copies of every Linear layer of a model, in one arena.
struct PackedWeights {
  std::unique_ptr<PackedArena> arena;  // storage of every matrix
  std::deque<PackedMatrix> matrices;   // deque: adding one never moves the others
  std::vector<Linear*> layers;         // the Linears that now point at a packed copy
  size_t bytes() const;
};

// Where a Linear's weight is read from when packing, if not from its float32 `weight`.
using WeightSources = std::map<const Linear*, WeightSource>;

// Packs every Linear of `weights` (attention projections, feed-forward, output) for `kernel`
// and points each one's `packed` at its copy, reading each weight from `sources` when listed
// there (a layer whose `weight` is null must be). kOpenblas packs nothing. The caller keeps the
// result alive as long as `weights` is used.
PackedWeights pack_linear_layers(ModelWeights& weights, LinearKernel kernel,
                                 const WeightSources& sources = {});

}  // namespace minimt
