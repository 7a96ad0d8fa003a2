#include "minimt/decoder.h"

#include <algorithm>

#include "minimt/attention.h"

namespace minimt {

std::vector<DecoderState> Decoder::start(const EncodedBatch& encoded,
                                         const std::vector<AttentionRecord*>& records) {
  const ModelConfig& c = config_;
  const int width = c.attention_width();
  const int rows = encoded.offsets.back();
  std::vector<DecoderState> states(encoded.sentences());
  for (int b = 0; b < encoded.sentences(); ++b) {
    states[b].source_length = encoded.length(b);
    states[b].layers.resize(c.decoder_layers);
    states[b].record = b < static_cast<int>(records.size()) ? records[b] : nullptr;
  }
  std::vector<float> k(static_cast<size_t>(rows) * width), v(k.size());  // [N, H*dk]
  for (int l = 0; l < c.decoder_layers; ++l) {
    const AttentionWeights& cross = weights_.decoder_layers[l].cross_attn;
    ops::linear(cross.k, encoded.states.data(), rows, k.data());
    ops::linear(cross.v, encoded.states.data(), rows, v.data());
    ++cross_projections_;
    for (int b = 0; b < encoded.sentences(); ++b) {
      auto first = static_cast<size_t>(encoded.offsets[b]) * width;
      auto last = static_cast<size_t>(encoded.offsets[b + 1]) * width;
      states[b].layers[l].cross_k.assign(k.begin() + first, k.begin() + last);
      states[b].layers[l].cross_v.assign(v.begin() + first, v.begin() + last);
    }
  }
  return states;
}

void Decoder::self_attention(const DecoderLayerWeights& layer, int l, const float* in, int rows,
                             const std::vector<DecoderState*>& states, float* out) {
  const ModelConfig& c = config_;
  const int width = c.attention_width(), heads = c.num_heads;
  LayerScratch& z = scratch_;
  float* q = reserve(z.q, static_cast<size_t>(rows) * width);  // [B, H*dk]
  float* k = reserve(z.k, static_cast<size_t>(rows) * width);
  float* v = reserve(z.v, static_cast<size_t>(rows) * width);
  float* context = reserve(z.context, static_cast<size_t>(rows) * width);
  ops::linear(layer.self_attn.q, in, rows, q);
  ops::linear(layer.self_attn.k, in, rows, k);
  ops::linear(layer.self_attn.v, in, rows, v);
  for (int b = 0; b < rows; ++b) {
    DecoderState& state = *states[b];
    LayerCache& cache = state.layers[l];
    const int t = state.length;  // this query's position; the cache holds rows 0..t-1
    // Append this position's key and value: the cache then holds exactly the visible keys,
    // so the causal mask needs no explicit masking here.
    cache.self_k.insert(cache.self_k.end(), k + static_cast<size_t>(b) * width,
                        k + static_cast<size_t>(b + 1) * width);
    cache.self_v.insert(cache.self_v.end(), v + static_cast<size_t>(b) * width,
                        v + static_cast<size_t>(b + 1) * width);
    float* probs = state.record ? state.record->decoder_self_steps[t].data() +
                                      static_cast<size_t>(l) * heads * (t + 1)
                                : nullptr;
    multi_head_attention(q + static_cast<size_t>(b) * width, cache.self_k.data(),
                         cache.self_v.data(), 1, t + 1, heads, c.head_dim, false,
                         context + static_cast<size_t>(b) * width, probs, z.scores);
  }
  ops::linear(layer.self_attn.out, context, rows, out);  // [B, d]
}

void Decoder::cross_attention(const DecoderLayerWeights& layer, int l, const float* in, int rows,
                              const std::vector<DecoderState*>& states, float* out) {
  const ModelConfig& c = config_;
  const int width = c.attention_width(), heads = c.num_heads;
  LayerScratch& z = scratch_;
  float* q = reserve(z.q, static_cast<size_t>(rows) * width);  // [B, H*dk]
  float* context = reserve(z.context, static_cast<size_t>(rows) * width);
  ops::linear(layer.cross_attn.q, in, rows, q);
  for (int b = 0; b < rows; ++b) {
    DecoderState& state = *states[b];
    const int s = state.source_length;
    float* probs = state.record ? state.record->cross_steps[state.length].data() +
                                      static_cast<size_t>(l) * heads * s
                                : nullptr;
    multi_head_attention(q + static_cast<size_t>(b) * width, state.layers[l].cross_k.data(),
                         state.layers[l].cross_v.data(), 1, s, heads, c.head_dim, false,
                         context + static_cast<size_t>(b) * width, probs, z.scores);
  }
  ops::linear(layer.cross_attn.out, context, rows, out);  // [B, d]
}

const std::vector<float>& Decoder::step(const std::vector<int>& tokens,
                                        const std::vector<DecoderState*>& states) {
  const ModelConfig& c = config_;
  const int d = c.d_model, heads = c.num_heads;
  const int rows = static_cast<int>(states.size());
  positions_.resize(rows);
  for (int b = 0; b < rows; ++b) {
    DecoderState& state = *states[b];
    positions_[b] = state.length;
    if (state.record) {  // room for this step's attention rows
      state.record->decoder_self_steps.emplace_back(static_cast<size_t>(c.decoder_layers) * heads *
                                                    (state.length + 1));
      state.record->cross_steps.emplace_back(static_cast<size_t>(c.decoder_layers) * heads *
                                             state.source_length);
    }
  }
  float* x = reserve(x_, static_cast<size_t>(rows) * d);  // [B, d]
  embed(c, weights_.target_embeddings, weights_.target_positions, tokens.data(), positions_.data(),
        rows, x);

  LayerScratch& z = scratch_;
  for (int l = 0; l < c.decoder_layers; ++l) {
    const DecoderLayerWeights& layer = weights_.decoder_layers[l];
    residual(c, layer.self_attn_norm, x, rows, z,
             [&](const float* in, float* out) { self_attention(layer, l, in, rows, states, out); });
    residual(c, layer.cross_attn_norm, x, rows, z, [&](const float* in, float* out) {
      cross_attention(layer, l, in, rows, states, out);
    });
    residual(c, layer.final_norm, x, rows, z, [&](const float* in, float* out) {
      feed_forward(c, layer.fc1, layer.fc2, in, rows, z.hidden, out);
    });
  }
  if (c.norm_position == NormPosition::kPre)
    ops::layer_norm(weights_.decoder_final_norm, x, rows, d, c.layer_norm_eps);

  const int vocab = c.target_vocab_size;
  logits_.resize(static_cast<size_t>(rows) * vocab);  // [B, V]
  for (int b = 0; b < rows; ++b) {
    float* row = logits_.data() + static_cast<size_t>(b) * vocab;
    if (weights_.final_logits_bias)
      std::copy(weights_.final_logits_bias, weights_.final_logits_bias + vocab, row);
    else
      std::fill(row, row + vocab, 0.0f);
  }
  ops::gemm(rows, vocab, d, 1.0f, x, d, weights_.output_projection, d, true, 1.0f, logits_.data(),
            vocab);
  for (DecoderState* state : states) ++state->length;
  return logits_;
}

}  // namespace minimt
