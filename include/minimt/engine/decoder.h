// The decoder stack, one position at a time: masked self-attention over a K/V cache,
// cross-attention over keys and values projected once per sentence, then the logits.
#pragma once

#include <memory>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/attention.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/head_mask.h"
#include "minimt/engine/layers.h"
#include "minimt/engine/probe.h"
#include "minimt/engine/probed_attention.h"
#include "minimt/engine/weights.h"

namespace minimt {

// Keys or values of the positions decoded so far, [rows, width], in a buffer that grows
// geometrically in blocks of rows: appending a step copies one row, not the whole cache.
class RowCache {
 public:
  int rows() const { return rows_; }
  size_t size() const { return static_cast<size_t>(rows_) * width_; }  // floats in use
  const float* data() const { return buffer_.get(); }
  // Room for n more rows of the given width (the same at every call), now counted as used.
  float* append(int n, int width);
  // Becomes the first `rows` rows of other, reusing this buffer's room when it suffices.
  void assign(const RowCache& other, int rows);

 private:
  // capacity_ floats, the first rows_ * width_ in use. Uninitialised (not a vector): zeroing
  // room that is written before it is read cost a tenth of a batch-32 decoder step.
  std::unique_ptr<float[]> buffer_;
  size_t capacity_ = 0;
  int width_ = 0, rows_ = 0;
};

// Rows that never change once made, shared by every state that continues one sentence (the
// beams of a beam search): copying a state copies the pointer, not the rows.
class SharedRows {
 public:
  SharedRows() = default;
  // `count` floats of `block` from `first` on: many sentences' rows in one block, made by one
  // product, each sentence holding its part (and the block alive) without a copy.
  SharedRows(const std::shared_ptr<const float[]>& block, size_t first, size_t count)
      : rows_(block, block.get() + first), size_(count) {}
  size_t size() const { return size_; }
  const float* data() const { return rows_.get(); }
  bool same_storage(const SharedRows& other) const { return rows_.get() == other.rows_.get(); }

 private:
  std::shared_ptr<const float> rows_;
  size_t size_ = 0;
};

// What one decoder layer keeps for one sentence.
struct LayerCache {
  SharedRows cross_k, cross_v;  // [S, H*dk]: the encoder output projected once
  RowCache self_k, self_v;      // [steps so far, H*dk]: grows by one row a step
};

// Everything the decoder keeps about one sentence between steps.
struct DecoderState {
  int source_length = 0;  // S
  int length = 0;         // decoder inputs consumed so far = the next position
  std::vector<LayerCache> layers;
  Probe* probe = nullptr;  // shown every step's named points when not null (probe.h)

  // Becomes a copy of other: the self-attention rows it has used (only those) are copied into
  // this state's buffers, the cross-attention keys and values are shared, the probe pointer
  // is copied as it is (two states showing one probe would mix their steps).
  void copy_from(const DecoderState& other);
};

class Decoder {
 public:
  Decoder(const Architecture& config, const ModelWeights& weights)
      : config_(config), weights_(weights) {}

  const Architecture& config() const { return config_; }

  // Heads to switch off from now on (not owned; nullptr: none).
  void set_head_mask(const HeadMask* mask) { attention_.set_head_mask(mask); }

  // Projects every sentence's encoder output through every layer's cross-attention key and
  // value weights, once. probes[b] (optional) will be shown sentence b's decoder passes.
  std::vector<DecoderState> start(const EncodedBatch& encoded,
                                  const std::vector<Probe*>& probes = {});

  // Feeds tokens[b] to states[b] at position states[b]->length and returns the next-token
  // logits of every state: [B, target_vocab_size], valid until the next call.
  const std::vector<float>& step(const std::vector<int>& tokens,
                                 const std::vector<DecoderState*>& states);

  // Feeds a whole run of tokens to one state in a single pass (causal mask inside the run) and
  // returns the logits after every position: [T, target_vocab_size]. Used to score a known
  // target and to check the cache. A probe is shown the same values as T calls of step()
  // would show it (a run's scores and weights: [H][T][t+T], causal).
  // Both calls throw Error past max_positions.
  const std::vector<float>& prefix(const std::vector<int>& tokens, DecoderState& state);

  // The same for several states in one pass: runs[b] (at least one token) goes to states[b].
  // Returns the logits after every position, run after run: [sum of run lengths, V].
  const std::vector<float>& run(const std::vector<std::vector<int>>& runs,
                                const std::vector<DecoderState*>& states);

  // states[i] becomes a copy of the former states[parents[i]] (DecoderState::copy_from), for a
  // beam search that keeps some hypotheses and drops others. parents may repeat or skip
  // indices. The first state that continues a parent takes over its buffers (no copy); only
  // further children copy the parent's rows. The buffers of the dropped states are kept for
  // the next call. Pointers to
  // elements of states taken before the call no longer point at the reordered states.
  void reorder(std::vector<DecoderState>& states, const std::vector<int>& parents);

  // The logit lens: the model's output side (the final layer norm of a pre-norm model, the
  // output projection and its bias) applied to `rows` outputs of a decoder layer, states
  // [rows, d_model] (ProbePoint::kLayerOutput). Returns the logits [rows, V], valid until the
  // next call.
  const std::vector<float>& lens_logits(const float* states, int rows);

  // Number of cross-attention K/V projections done by start(), one per layer and batch.
  long long cross_projections() const { return cross_projections_; }

 private:
  // rows[b] new positions for states[b]; tokens holds them all, sentence after sentence.
  const std::vector<float>& forward(const std::vector<int>& tokens, const std::vector<int>& rows,
                                    const std::vector<DecoderState*>& states);
  // The logits of the total rows of x_ (the last layer's output), written to logits_.
  void output_logits(int total, const std::vector<int>& rows,
                     const std::vector<DecoderState*>& states);
  void self_attention(const DecoderLayerWeights& layer, int l, const float* in,
                      const std::vector<int>& rows, const std::vector<DecoderState*>& states,
                      float* out);
  void cross_attention(const DecoderLayerWeights& layer, int l, const float* in,
                       const std::vector<int>& rows, const std::vector<DecoderState*>& states,
                       float* out);
  // Shows each state's probe its rows of x [R, width] at `point` of layer l (keys: its source
  // length).
  void show_rows(ProbePoint point, int l, const float* x, int width, const std::vector<int>& rows,
                 const std::vector<DecoderState*>& states);

  const Architecture& config_;
  const ModelWeights& weights_;
  LayerScratch scratch_;
  ProbedAttention attention_;
  std::vector<float> x_, logits_;
  std::vector<float> relative_table_;  // T5's self-attention bias by distance, per forward
  ScoreOptions self_scores_;           // how self-attention scores are made in this forward
  std::vector<float> lens_states_, lens_logits_;  // the logit lens
  std::vector<DecoderState> reordered_;           // reorder()'s destination, then the spare buffers
  std::vector<int> positions_, ones_, run_tokens_, run_rows_;
  std::vector<char> taken_;  // reorder(): the parents already handed to a child
  long long cross_projections_ = 0;
};

}  // namespace minimt
