#include "engine/backward/gradient_pass.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/backward/stacks.h"
#include "minimt/engine/backward_ops.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {
namespace {

float embedding_scale(const Architecture& c) {
  return c.scale_embeddings ? std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
}

// x [V*N, d] = (alpha_v e_i) * scale + P[i + offset] (+ the embedding norm), as layers.h's
// embed() and the stacks' embedding norm: `rows` e [N, d] (or null: the rows of `table` by id),
// `positions` the position table or null (sinusoidal on the fly).
void embed_variants(const Architecture& c, const float* table, const float* rows,
                    const float* positions, const std::vector<int>& ids,
                    const std::vector<double>& alphas, const LayerNormWeights* norm, float* x,
                    NormTape& tape) {
  const int d = c.d_model, n = static_cast<int>(ids.size());
  const float scale = embedding_scale(c);
  const int zero_row_token = c.positions == Positions::kSinusoidalSplit ? c.special.pad : -1;
  std::vector<float> position_rows(static_cast<size_t>(n) * d, 0.0f);  // [N, d]
  for (int i = 0; i < n; ++i) {
    float* row = position_rows.data() + static_cast<size_t>(i) * d;
    const int position = i + c.position_offset;
    if (c.positions == Positions::kNone || ids[i] == zero_row_token) continue;
    if (positions)
      std::copy_n(positions + static_cast<size_t>(position) * d, d, row);
    else if (c.positions == Positions::kSinusoidalSplit)
      ops::add_sinusoidal_split_position(position, d, row);
    else
      ops::add_sinusoidal_position(position, d, row);
  }
  for (size_t v = 0; v < alphas.size(); ++v) {
    const auto alpha = static_cast<float>(alphas[v]);
    for (int i = 0; i < n; ++i) {
      const float* token =
          rows ? rows + static_cast<size_t>(i) * d : table + static_cast<size_t>(ids[i]) * d;
      const float* position = position_rows.data() + static_cast<size_t>(i) * d;
      float* row = x + (v * n + i) * static_cast<size_t>(d);
      for (int k = 0; k < d; ++k) row[k] = (alpha * token[k]) * scale + position[k];
    }
  }
  if (norm) norm_forward(c, *norm, x, static_cast<int64_t>(alphas.size()) * n, tape);
}

// The gradient with respect to the embedded rows dx [V*B*N, d] into the gradient with respect
// to the looked-up rows, in place.
void embed_backward(const Architecture& c, const LayerNormWeights* norm, const NormTape& tape,
                    const GradShape& shape, float* dx) {
  if (norm) norm_backward(c, *norm, tape, shape, dx);
  ops::scale_in_place(dx, embedding_scale(c), shape.gradient_rows() * c.d_model);
}

}  // namespace

GradientPass gradient_pass(const DenseModel& m, const HeadMask* mask, const SentenceIds& ids,
                           const std::vector<double>& alphas, bool backward) {
  const Architecture& c = m.config();
  const ModelWeights& w = m.weights();
  const int d = c.d_model, vocab = c.target_vocab_size, V = static_cast<int>(alphas.size());
  const int S = static_cast<int>(ids.source->size()), T = static_cast<int>(ids.output->size());
  Scratch z;
  // The encoder, [V*S, d]
  NormTape source_embedding, target_embedding;
  StackTape encoder, decoder;
  std::vector<float> memory(static_cast<size_t>(V) * S * d);
  const LayerNormWeights* source_norm = c.embedding_norm ? &w.encoder_embedding_norm : nullptr;
  const LayerNormWeights* target_norm = c.embedding_norm ? &w.decoder_embedding_norm : nullptr;
  embed_variants(c, w.source_embeddings, ids.source_rows, w.source_positions, *ids.source, alphas,
                 source_norm, memory.data(), source_embedding);
  encoder_forward(m, mask, V, S, memory.data(), encoder, z);
  // The decoder, [V*T, d], then the logits [V*T, vocab]
  std::vector<float> y(static_cast<size_t>(V) * T * d);
  embed_variants(c, w.target_embeddings, ids.target_rows, w.target_positions, *ids.decoder_input,
                 alphas, target_norm, y.data(), target_embedding);
  decoder_forward(m, mask, V, T, memory.data(), S, y.data(), decoder, z);
  if (c.output_scale != 1.0f)
    ops::scale_in_place(y.data(), c.output_scale, static_cast<int64_t>(V) * T * d);
  std::vector<float> logits(static_cast<size_t>(V) * T * vocab);
  dense_forward(m.output(), y.data(), static_cast<int64_t>(V) * T, logits.data());

  GradientPass pass;
  pass.log_probs.resize(static_cast<size_t>(V) * T);
  std::vector<float> dlogits(logits.size());  // [V*T, vocab]: df_t/dlogits at row t
  for (int v = 0; v < V; ++v)
    for (int t = 0; t < T; ++t) {
      const size_t row = static_cast<size_t>(v) * T + t;
      float* dl = dlogits.data() + row * vocab;
      const int target = (*ids.output)[t];
      if (t == 0 && c.forced_first_token >= 0) {
        // decoder.cpp's forced first token: a constant log-probability, no gradient
        std::fill(dl, dl + vocab, 0.0f);
        pass.log_probs[row] =
            target == c.forced_first_token ? 0.0f : -std::numeric_limits<float>::infinity();
        continue;
      }
      pass.log_probs[row] = log_softmax_target(logits.data() + row * vocab, vocab, target, dl);
    }
  if (!backward) return pass;

  // Seeds: df_t/dy at decoder row t only, [V][B=T][T][d]
  std::vector<float> dh(static_cast<size_t>(V) * T * d);
  dense_backward(m.output(), dlogits.data(), static_cast<int64_t>(V) * T, dh.data(), false, z.sum);
  const GradShape target_shape{V, T, T}, source_shape{V, T, S};
  std::vector<float> dy(static_cast<size_t>(target_shape.gradient_rows()) * d, 0.0f);
  for (int v = 0; v < V; ++v)
    for (int t = 0; t < T; ++t) {
      const float* from = dh.data() + (static_cast<size_t>(v) * T + t) * d;
      float* to = dy.data() + ((static_cast<size_t>(v) * T + t) * T + t) * d;
      for (int k = 0; k < d; ++k) to[k] = from[k] * c.output_scale;
    }
  std::vector<float> dmemory(static_cast<size_t>(source_shape.gradient_rows()) * d, 0.0f);
  decoder_backward(m, decoder, target_shape, dy.data(), dmemory.data(), z);
  embed_backward(c, target_norm, target_embedding, target_shape, dy.data());
  encoder_backward(m, encoder, source_shape, dmemory.data(), z);
  embed_backward(c, source_norm, source_embedding, source_shape, dmemory.data());
  pass.source_grad = std::move(dmemory);
  pass.target_grad = std::move(dy);
  return pass;
}

}  // namespace minimt::backward
