// Pieces shared by the encoder and decoder layers: embeddings, residual sub-layers, feed-forward.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/weights.h"

namespace minimt {

// out[count, d] = E[ids[i]] * (sqrt(d) if scaled) + P[positions[i] + position_offset], P by
// config.positions (none: nothing added; sinusoidal_split: nothing for a pad token).
// position_table is the [max_positions + position_offset, d] table (learned, or sinusoidal
// precomputed), or null to compute sinusoidal positions on the fly.
void embed(const Architecture& config, const float* token_table, const float* position_table,
           const int* ids, const int* positions, int count, float* out);

// An allocator whose resize leaves new floats uninitialised: scratch is always written before it
// is read, and zeroing an encoder's megabytes for each batch showed in profiles (2% of a run).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialised: for float, nothing written
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using ScratchBuffer = std::vector<float, UninitializedAllocator<float>>;

// Scratch buffers one layer stack reuses across calls, so steady-state decoding allocates
// nothing (vectors only grow).
struct LayerScratch {
  ScratchBuffer normed, q, k, v, context, sublayer_out, hidden, gate, scores;
};

// In place over rows of width d_model: the model's norm (layer norm, or RMS norm in format v2).
void normalize(const Architecture& config, const LayerNormWeights& norm, float* x, int rows);

// One residual sub-layer over x [rows, d]:
//   post-norm: x = N(x + f(x));  pre-norm: x = x + f(N(x)), N the model's norm.
// f(input, output) reads input [rows, d] and writes output [rows, d].
template <typename Sublayer>
void residual(const Architecture& config, const LayerNormWeights& norm, float* x, int rows,
              LayerScratch& scratch, Sublayer&& sublayer) {
  const int d = config.d_model;
  const size_t count = static_cast<size_t>(rows) * d;
  if (scratch.sublayer_out.size() < count) scratch.sublayer_out.resize(count);
  if (config.norm_position == NormPosition::kPre) {
    if (scratch.normed.size() < count) scratch.normed.resize(count);
    std::copy(x, x + count, scratch.normed.begin());
    normalize(config, norm, scratch.normed.data(), rows);
    sublayer(scratch.normed.data(), scratch.sublayer_out.data());
    ops::add_in_place(x, scratch.sublayer_out.data(), count);
  } else {
    sublayer(static_cast<const float*>(x), scratch.sublayer_out.data());
    ops::add_in_place(x, scratch.sublayer_out.data(), count);
    normalize(config, norm, x, rows);
  }
}

// out[rows, d] = fc2(act(fc1(x))), or fc2(act(fc1(x)) * fc1_linear(x)) when gated;
// scratch.hidden (and scratch.gate) grow to [rows, d_ff].
void feed_forward(const Architecture& config, const Linear& fc1, const Linear& fc1_linear,
                  const Linear& fc2, const float* x, int rows, LayerScratch& scratch, float* out);

// Makes sure v holds at least count floats.
template <typename Allocator>
float* reserve(std::vector<float, Allocator>& v, size_t count) {
  if (v.size() < count) v.resize(count);
  return v.data();
}

}  // namespace minimt
