#include "minimt/engine/decoder.h"

#include <algorithm>
#include <numeric>

#include "minimt/engine/attention.h"
#include "minimt/base/error.h"

namespace minimt {

std::vector<DecoderState> Decoder::start(const EncodedBatch& encoded,
                                         const std::vector<AttentionRecord*>& records) {
  const Architecture& c = config_;
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

void Decoder::self_attention(const DecoderLayerWeights& layer, int l, const float* in,
                             const std::vector<int>& rows, const std::vector<DecoderState*>& states,
                             float* out) {
  const Architecture& c = config_;
  const int width = c.attention_width(), heads = c.num_heads;
  const int total = std::accumulate(rows.begin(), rows.end(), 0);
  LayerScratch& z = scratch_;
  float* q = reserve(z.q, static_cast<size_t>(total) * width);  // [R, H*dk]
  float* k = reserve(z.k, static_cast<size_t>(total) * width);
  float* v = reserve(z.v, static_cast<size_t>(total) * width);
  float* context = reserve(z.context, static_cast<size_t>(total) * width);
  ops::linear(layer.self_attn.q, in, total, q);
  ops::linear(layer.self_attn.k, in, total, k);
  ops::linear(layer.self_attn.v, in, total, v);
  size_t at = 0;  // first row of sentence b
  for (size_t b = 0; b < states.size(); ++b) {
    DecoderState& state = *states[b];
    LayerCache& cache = state.layers[l];
    const int n = rows[b], t = state.length;  // positions t .. t+n-1; the cache holds 0..t-1
    const size_t first = at * width, last = (at + n) * width;
    // Append the new keys and values: the cache then holds exactly the keys these queries may
    // see, and the causal mask only matters inside a run of several new positions.
    cache.self_k.insert(cache.self_k.end(), k + first, k + last);
    cache.self_v.insert(cache.self_v.end(), v + first, v + last);
    float* probs = state.record && n == 1 ? state.record->decoder_self_steps.back().data() +
                                                static_cast<size_t>(l) * heads * (t + 1)
                                          : nullptr;
    multi_head_attention(q + first, cache.self_k.data(), cache.self_v.data(), n, t + n, heads,
                         c.head_dim, true, context + first, probs, z.scores);
    at += n;
  }
  ops::linear(layer.self_attn.out, context, total, out);  // [R, d]
}

void Decoder::cross_attention(const DecoderLayerWeights& layer, int l, const float* in,
                              const std::vector<int>& rows,
                              const std::vector<DecoderState*>& states, float* out) {
  const Architecture& c = config_;
  const int width = c.attention_width(), heads = c.num_heads;
  const int total = std::accumulate(rows.begin(), rows.end(), 0);
  LayerScratch& z = scratch_;
  float* q = reserve(z.q, static_cast<size_t>(total) * width);  // [R, H*dk]
  float* context = reserve(z.context, static_cast<size_t>(total) * width);
  ops::linear(layer.cross_attn.q, in, total, q);
  size_t at = 0;
  for (size_t b = 0; b < states.size(); ++b) {
    DecoderState& state = *states[b];
    const int n = rows[b], s = state.source_length;
    float* probs = state.record && n == 1 ? state.record->cross_steps.back().data() +
                                                static_cast<size_t>(l) * heads * s
                                          : nullptr;
    multi_head_attention(q + at * width, state.layers[l].cross_k.data(),
                         state.layers[l].cross_v.data(), n, s, heads, c.head_dim, false,
                         context + at * width, probs, z.scores);
    at += n;
  }
  ops::linear(layer.cross_attn.out, context, total, out);  // [R, d]
}

const std::vector<float>& Decoder::step(const std::vector<int>& tokens,
                                        const std::vector<DecoderState*>& states) {
  ones_.assign(states.size(), 1);
  for (DecoderState* state : states) {
    if (!state->record) continue;
    // Room for this step's attention rows.
    const Architecture& c = config_;
    const size_t per_layer = static_cast<size_t>(c.decoder_layers) * c.num_heads;
    state->record->decoder_self_steps.emplace_back(per_layer * (state->length + 1));
    state->record->cross_steps.emplace_back(per_layer * state->source_length);
  }
  return forward(tokens, ones_, states);
}

const std::vector<float>& Decoder::prefix(const std::vector<int>& tokens, DecoderState& state) {
  // A record holds one row per step() from position 0; a prefix run would leave holes in it.
  if (state.record)
    throw Error("attention is recorded step by step: prefix() needs a state without a record");
  return forward(tokens, {static_cast<int>(tokens.size())}, {&state});
}

const std::vector<float>& Decoder::forward(const std::vector<int>& tokens,
                                           const std::vector<int>& rows,
                                           const std::vector<DecoderState*>& states) {
  const Architecture& c = config_;
  const int d = c.d_model;
  const int total = static_cast<int>(tokens.size());
  positions_.clear();
  for (size_t b = 0; b < states.size(); ++b) {
    if (states[b]->length + rows[b] > c.max_positions)
      throw Error("the decoder input would pass max_positions (" + std::to_string(c.max_positions) +
                  ")");
    for (int i = 0; i < rows[b]; ++i) positions_.push_back(states[b]->length + i);
  }
  float* x = reserve(x_, static_cast<size_t>(total) * d);  // [R, d]
  embed(c, weights_.target_embeddings, weights_.target_positions, tokens.data(), positions_.data(),
        total, x);

  LayerScratch& z = scratch_;
  for (int l = 0; l < c.decoder_layers; ++l) {
    const DecoderLayerWeights& layer = weights_.decoder_layers[l];
    residual(c, layer.self_attn_norm, x, total, z,
             [&](const float* in, float* out) { self_attention(layer, l, in, rows, states, out); });
    residual(c, layer.cross_attn_norm, x, total, z, [&](const float* in, float* out) {
      cross_attention(layer, l, in, rows, states, out);
    });
    residual(c, layer.final_norm, x, total, z, [&](const float* in, float* out) {
      feed_forward(c, layer.fc1, layer.fc2, in, total, z.hidden, out);
    });
  }
  if (c.norm_position == NormPosition::kPre)
    ops::layer_norm(weights_.decoder_final_norm, x, total, d, c.layer_norm_eps);

  logits_.resize(static_cast<size_t>(total) * c.target_vocab_size);  // [R, V]
  ops::linear(weights_.output, x, total, logits_.data());
  for (size_t b = 0; b < states.size(); ++b) states[b]->length += rows[b];
  return logits_;
}

}  // namespace minimt
