// The decoder stack, one position at a time: masked self-attention over a K/V cache,
// cross-attention over keys and values projected once per sentence, then the logits.
#pragma once

#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/engine/architecture.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/layers.h"
#include "minimt/engine/weights.h"

namespace minimt {

// What one decoder layer keeps for one sentence.
struct LayerCache {
  std::vector<float> cross_k, cross_v;  // [S, H*dk]: the encoder output projected once
  std::vector<float> self_k, self_v;    // [steps so far, H*dk]: grows by one row a step
};

// Everything the decoder keeps about one sentence between steps.
struct DecoderState {
  int source_length = 0;  // S
  int length = 0;         // decoder inputs consumed so far = the next position
  std::vector<LayerCache> layers;
  AttentionRecord* record = nullptr;  // filled at every step when not null
};

class Decoder {
 public:
  Decoder(const Architecture& config, const ModelWeights& weights)
      : config_(config), weights_(weights) {}

  // Projects every sentence's encoder output through every layer's cross-attention key and
  // value weights, once. records[b] (optional) will receive sentence b's decoder attention.
  std::vector<DecoderState> start(const EncodedBatch& encoded,
                                  const std::vector<AttentionRecord*>& records = {});

  // Feeds tokens[b] to states[b] at position states[b]->length and returns the next-token
  // logits of every state: [B, target_vocab_size], valid until the next call.
  const std::vector<float>& step(const std::vector<int>& tokens,
                                 const std::vector<DecoderState*>& states);

  // Feeds a whole run of tokens to one state in a single pass (causal mask inside the run) and
  // returns the logits after every position: [T, target_vocab_size]. Used to score a known
  // target and to check the cache. The state must have no record (records are step by step).
  // Both calls throw Error past max_positions.
  const std::vector<float>& prefix(const std::vector<int>& tokens, DecoderState& state);

  // Number of cross-attention K/V projections done by start(), one per layer and batch.
  long long cross_projections() const { return cross_projections_; }

 private:
  // rows[b] new positions for states[b]; tokens holds them all, sentence after sentence.
  const std::vector<float>& forward(const std::vector<int>& tokens, const std::vector<int>& rows,
                                    const std::vector<DecoderState*>& states);
  void self_attention(const DecoderLayerWeights& layer, int l, const float* in,
                      const std::vector<int>& rows, const std::vector<DecoderState*>& states,
                      float* out);
  void cross_attention(const DecoderLayerWeights& layer, int l, const float* in,
                       const std::vector<int>& rows, const std::vector<DecoderState*>& states,
                       float* out);

  const Architecture& config_;
  const ModelWeights& weights_;
  LayerScratch scratch_;
  std::vector<float> x_, logits_;
  std::vector<int> positions_, ones_;
  long long cross_projections_ = 0;
};

}  // namespace minimt
