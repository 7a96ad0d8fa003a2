#include "minimt/engine/encoder.h"

#include <algorithm>

#include "minimt/engine/relative_position.h"

namespace minimt {

EncodedBatch Encoder::forward(const std::vector<std::vector<int>>& sources,
                              const std::vector<Probe*>& probes) {
  const Architecture& c = config_;
  const int d = c.d_model, width = c.attention_width(), heads = c.num_heads;
  EncodedBatch batch;
  batch.offsets.push_back(0);
  std::vector<int> ids, positions;
  for (const auto& source : sources) {
    for (size_t i = 0; i < source.size(); ++i) {
      ids.push_back(source[i]);
      positions.push_back(static_cast<int>(i));
    }
    batch.offsets.push_back(static_cast<int>(ids.size()));
  }
  const int rows = static_cast<int>(ids.size());
  batch.states.resize(static_cast<size_t>(rows) * d);
  float* x = batch.states.data();  // [N, d]: every sentence's rows, one after another
  embed(c, weights_.source_embeddings, weights_.source_positions, ids.data(), positions.data(),
        rows, x);
  if (c.embedding_norm) normalize(c, weights_.encoder_embedding_norm, x, rows);
  ScoreOptions scores{c.scale_attention_scores};
  if (weights_.encoder_relative_bias) {
    int longest = 1;
    for (int b = 0; b < batch.sentences(); ++b) longest = std::max(longest, batch.length(b));
    scores = relative_bias_table(c, weights_.encoder_relative_bias, true, longest, bias_table_);
  }
  std::vector<Probe*> probe(batch.sentences(), nullptr);  // sentence b's, or none
  std::copy_n(probes.begin(), std::min(probes.size(), probe.size()), probe.begin());
  // Shows sentence b's probe its rows of x at `point` of layer l.
  const auto show_rows = [&](ProbePoint point, int l, int b) {
    if (!probe[b]) return;
    ProbeView view{point, AttentionKind::kEncoder, l};
    view.rows = batch.length(b);
    view.data = x + static_cast<size_t>(batch.offsets[b]) * d;  // [S, d]
    show(probe[b], view);
  };
  for (int b = 0; b < batch.sentences(); ++b) show_rows(ProbePoint::kInput, -1, b);

  LayerScratch& z = scratch_;
  for (int l = 0; l < c.encoder_layers; ++l) {
    const EncoderLayerWeights& layer = weights_.encoder_layers[l];
    residual(c, layer.self_attn_norm, x, rows, z, [&](const float* in, float* out) {
      const size_t projected = static_cast<size_t>(rows) * width;
      float* q = reserve(z.q, projected);  // [N, H*dk]
      float* k = reserve(z.k, projected);
      float* v = reserve(z.v, projected);
      float* context = reserve(z.context, projected);
      // q, k and v of the same input: one call, the input quantized (or rounded) once.
      const Linear* projections[] = {&layer.self_attn.q, &layer.self_attn.k, &layer.self_attn.v};
      float* projected_rows[] = {q, k, v};
      ops::linear_many(projections, 3, in, rows, projected_rows);
      for (int b = 0; b < batch.sentences(); ++b) {
        const int s = batch.length(b);
        const size_t at = static_cast<size_t>(batch.offsets[b]) * width;
        // Each sentence attends only to its own rows: the same as a padding mask.
        const AttentionInputs input{q + at, k + at, v + at, s, s, heads, c.head_dim, false};
        attention_.run(probe[b], {AttentionKind::kEncoder, l, 0, s}, input, scores, context + at);
      }
      ops::linear(layer.self_attn.out, context, rows, out);  // [N, d]
    });
    residual(c, layer.final_norm, x, rows, z, [&](const float* in, float* out) {
      feed_forward(c, layer.fc1, layer.fc1_linear, layer.fc2, in, rows, z, out);
    });
    for (int b = 0; b < batch.sentences(); ++b) show_rows(ProbePoint::kLayerOutput, l, b);
  }
  if (c.final_norms) normalize(c, weights_.encoder_final_norm, x, rows);
  return batch;
}

}  // namespace minimt
