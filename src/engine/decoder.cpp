#include "minimt/engine/decoder.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "minimt/base/error.h"
#include "minimt/engine/relative_position.h"

namespace minimt {

namespace {

constexpr int kBlockRows = 16;  // the least room a RowCache takes, in rows

}  // namespace

float* RowCache::append(int n, int width) {
  width_ = width;
  const size_t used = size(), needed = used + static_cast<size_t>(n) * width;
  if (capacity_ < needed) {
    // Double the room: T steps reallocate O(log T) times and copy O(T) rows in all.
    const size_t room = std::max({needed, 2 * capacity_, static_cast<size_t>(kBlockRows) * width});
    std::unique_ptr<float[]> bigger(new float[room]);
    std::copy(buffer_.get(), buffer_.get() + used, bigger.get());
    buffer_ = std::move(bigger);
    capacity_ = room;
  }
  rows_ += n;
  return buffer_.get() + used;
}

void RowCache::assign(const RowCache& other, int rows) {
  width_ = other.width_;
  const size_t count = static_cast<size_t>(rows) * width_;
  // Not enough room: take as much as other has (it will grow the same way), keep nothing.
  if (capacity_ < count) {
    capacity_ = std::max(count, other.capacity_);
    buffer_.reset(new float[capacity_]);
  }
  std::copy(other.buffer_.get(), other.buffer_.get() + count, buffer_.get());
  rows_ = rows;
}

void DecoderState::copy_from(const DecoderState& other) {
  if (this == &other) return;
  source_length = other.source_length;
  length = other.length;
  probe = other.probe;
  layers.resize(other.layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    const LayerCache& from = other.layers[l];
    layers[l].cross_k = from.cross_k;
    layers[l].cross_v = from.cross_v;
    layers[l].self_k.assign(from.self_k, from.self_k.rows());
    layers[l].self_v.assign(from.self_v, from.self_v.rows());
  }
}

std::vector<DecoderState> Decoder::start(const EncodedBatch& encoded,
                                         const std::vector<Probe*>& probes) {
  const Architecture& c = config_;
  const int width = c.attention_width();
  const int rows = encoded.offsets.back();
  std::vector<DecoderState> states(encoded.sentences());
  for (int b = 0; b < encoded.sentences(); ++b) {
    states[b].source_length = encoded.length(b);
    states[b].layers.resize(c.decoder_layers);
    states[b].probe = b < static_cast<int>(probes.size()) ? probes[b] : nullptr;
  }
  const size_t count = static_cast<size_t>(rows) * width;
  for (int l = 0; l < c.decoder_layers; ++l) {
    const AttentionWeights& cross = weights_.decoder_layers[l].cross_attn;
    // Every sentence's rows in one block (uninitialised: the product writes all of it), each
    // sentence then holding its part of it.
    const std::shared_ptr<float[]> k(new float[count]), v(new float[count]);  // [N, H*dk]
    // k and v of the encoder output: one call, the states quantized (or rounded) once.
    const Linear* projections[] = {&cross.k, &cross.v};
    float* projected[] = {k.get(), v.get()};
    ops::linear_many(projections, 2, encoded.states.data(), rows, projected);
    ++cross_projections_;
    for (int b = 0; b < encoded.sentences(); ++b) {
      const auto first = static_cast<size_t>(encoded.offsets[b]) * width;
      const auto length = static_cast<size_t>(encoded.length(b)) * width;
      states[b].layers[l].cross_k = SharedRows(k, first, length);
      states[b].layers[l].cross_v = SharedRows(v, first, length);
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
  // q, k and v of the same input: one call, the input quantized (or rounded) once.
  const Linear* projections[] = {&layer.self_attn.q, &layer.self_attn.k, &layer.self_attn.v};
  float* projected[] = {q, k, v};
  ops::linear_many(projections, 3, in, total, projected);
  size_t at = 0;  // first row of sentence b
  for (size_t b = 0; b < states.size(); ++b) {
    DecoderState& state = *states[b];
    LayerCache& cache = state.layers[l];
    const int n = rows[b], t = state.length;  // positions t .. t+n-1; the cache holds 0..t-1
    const size_t first = at * width, last = (at + n) * width;
    // Append the new keys and values: the cache then holds exactly the keys these queries may
    // see, and the causal mask only matters inside a run of several new positions.
    std::copy(k + first, k + last, cache.self_k.append(n, width));
    std::copy(v + first, v + last, cache.self_v.append(n, width));
    const AttentionInputs input{
        q + first, cache.self_k.data(), cache.self_v.data(), n, t + n, heads, c.head_dim, true};
    attention_.run(state.probe, {AttentionKind::kDecoder, l, t, n}, input, self_scores_,
                   context + first);
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
    const LayerCache& cache = state.layers[l];
    const AttentionInputs input{
        q + at * width, cache.cross_k.data(), cache.cross_v.data(), n, s, heads, c.head_dim, false};
    // The keys and values are the encoder output's: new to the first position only.
    attention_.run(state.probe, {AttentionKind::kCross, l, state.length, state.length ? 0 : s},
                   input, ScoreOptions{c.scale_attention_scores}, context + at * width);
    at += n;
  }
  ops::linear(layer.cross_attn.out, context, total, out);  // [R, d]
}

void Decoder::show_rows(ProbePoint point, int l, const float* x, int width,
                        const std::vector<int>& rows, const std::vector<DecoderState*>& states) {
  size_t at = 0;  // first row of sentence b
  for (size_t b = 0; b < states.size(); at += rows[b], ++b) {
    const DecoderState& state = *states[b];
    if (!state.probe) continue;
    show(state.probe, {point, AttentionKind::kDecoder, l, state.length, rows[b],
                       state.source_length, false, x + at * width});
  }
}

const std::vector<float>& Decoder::lens_logits(const float* states, int rows) {
  const Architecture& c = config_;
  const size_t count = static_cast<size_t>(rows) * c.d_model;
  float* x = reserve(lens_states_, count);  // [rows, d]
  std::copy(states, states + count, x);
  // The model's output side, as forward() and output_logits() apply it after the last layer.
  if (c.final_norms) normalize(c, weights_.decoder_final_norm, x, rows);
  if (c.output_scale != 1.0f) ops::scale_in_place(x, c.output_scale, static_cast<int64_t>(count));
  lens_logits_.resize(static_cast<size_t>(rows) * c.target_vocab_size);  // [rows, V]
  ops::linear(weights_.output, x, rows, lens_logits_.data());
  return lens_logits_;
}

const std::vector<float>& Decoder::step(const std::vector<int>& tokens,
                                        const std::vector<DecoderState*>& states) {
  ones_.assign(states.size(), 1);
  return forward(tokens, ones_, states);
}

const std::vector<float>& Decoder::prefix(const std::vector<int>& tokens, DecoderState& state) {
  return forward(tokens, {static_cast<int>(tokens.size())}, {&state});
}

const std::vector<float>& Decoder::run(const std::vector<std::vector<int>>& runs,
                                       const std::vector<DecoderState*>& states) {
  run_tokens_.clear();
  run_rows_.clear();
  for (const auto& tokens : runs) {
    if (tokens.empty()) throw Error("decoder run: a state was given no token");
    run_tokens_.insert(run_tokens_.end(), tokens.begin(), tokens.end());
    run_rows_.push_back(static_cast<int>(tokens.size()));
  }
  return forward(run_tokens_, run_rows_, states);
}

void Decoder::reorder(std::vector<DecoderState>& states, const std::vector<int>& parents) {
  for (int parent : parents)
    if (parent < 0 || parent >= static_cast<int>(states.size()))
      throw Error("reorder: parent " + std::to_string(parent) + " is not one of the " +
                  std::to_string(states.size()) + " states");
  reordered_.resize(parents.size());
  // Copies first, while every parent still holds its rows; then each parent's first child
  // takes the parent's buffers by a swap: a beam that continues itself costs nothing.
  taken_.assign(states.size(), 0);
  std::vector<char> first_child(parents.size(), 0);
  for (size_t i = 0; i < parents.size(); ++i)
    if (!taken_[parents[i]]) taken_[parents[i]] = first_child[i] = 1;
  for (size_t i = 0; i < parents.size(); ++i)
    if (!first_child[i]) reordered_[i].copy_from(states[parents[i]]);
  for (size_t i = 0; i < parents.size(); ++i)
    if (first_child[i]) std::swap(reordered_[i], states[parents[i]]);
  states.swap(reordered_);
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
  if (c.embedding_norm) normalize(c, weights_.decoder_embedding_norm, x, total);
  show_rows(ProbePoint::kInput, -1, x, d, rows, states);
  self_scores_ = ScoreOptions{c.scale_attention_scores};
  if (weights_.decoder_relative_bias) {
    int longest = 1;
    for (size_t b = 0; b < states.size(); ++b)
      longest = std::max(longest, states[b]->length + rows[b]);
    self_scores_ =
        relative_bias_table(c, weights_.decoder_relative_bias, false, longest, relative_table_);
  }

  LayerScratch& z = scratch_;
  for (int l = 0; l < c.decoder_layers; ++l) {
    const DecoderLayerWeights& layer = weights_.decoder_layers[l];
    residual(c, layer.self_attn_norm, x, total, z,
             [&](const float* in, float* out) { self_attention(layer, l, in, rows, states, out); });
    residual(c, layer.cross_attn_norm, x, total, z, [&](const float* in, float* out) {
      cross_attention(layer, l, in, rows, states, out);
    });
    residual(c, layer.final_norm, x, total, z, [&](const float* in, float* out) {
      feed_forward(c, layer.fc1, layer.fc1_linear, layer.fc2, in, total, z, out);
    });
    show_rows(ProbePoint::kLayerOutput, l, x, d, rows, states);
  }
  if (c.final_norms) normalize(c, weights_.decoder_final_norm, x, total);
  output_logits(total, rows, states);
  for (size_t b = 0; b < states.size(); ++b) states[b]->length += rows[b];
  return logits_;
}

void Decoder::output_logits(int total, const std::vector<int>& rows,
                            const std::vector<DecoderState*>& states) {
  const Architecture& c = config_;
  const int vocab = c.target_vocab_size;
  float* x = x_.data();  // [R, d]
  // T5 with a tied output scales the decoder output by d_model^-0.5 before the product.
  if (c.output_scale != 1.0f)
    ops::scale_in_place(x, c.output_scale, static_cast<int64_t>(total) * c.d_model);
  logits_.resize(static_cast<size_t>(total) * vocab);  // [R, V]
  ops::linear(weights_.output, x, total, logits_.data());
  if (c.forced_first_token < 0) return;
  // generate()'s forced_bos_token_id: after the start token (position 0) the forced token is
  // the only possible one, so every search, score and dump sees its probability as 1.
  size_t row = 0;
  for (size_t b = 0; b < states.size(); row += rows[b], ++b) {
    if (states[b]->length != 0) continue;
    float* logits = logits_.data() + row * vocab;
    std::fill(logits, logits + vocab, -std::numeric_limits<float>::infinity());
    logits[c.forced_first_token] = 0.0f;
  }
}

}  // namespace minimt
