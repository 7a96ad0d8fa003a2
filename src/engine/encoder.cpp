#include "minimt/engine/encoder.h"

#include <algorithm>

#include "minimt/engine/attention.h"
#include "minimt/engine/attention_inside.h"
#include "minimt/engine/relative_position.h"

namespace minimt {

EncodedBatch Encoder::forward(const std::vector<std::vector<int>>& sources,
                              const std::vector<AttentionRecord*>& records) {
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

  for (int b = 0; b < batch.sentences(); ++b) {
    AttentionRecord* record = b < static_cast<int>(records.size()) ? records[b] : nullptr;
    if (!record || !record->keeps_everything()) continue;
    size_t s = batch.length(b);
    record->encoder_self.assign(static_cast<size_t>(c.encoder_layers) * heads * s * s, 0.0f);
    if (!record->extras.attention()) continue;
    for (size_t i = 0; i < s; ++i)
      record->encoder_inside.add_query(record->extras, static_cast<int>(s));
    record->encoder_inside.add_keys(record->extras, static_cast<int>(s));
  }

  LayerScratch& z = scratch_;
  for (int l = 0; l < c.encoder_layers; ++l) {
    const EncoderLayerWeights& layer = weights_.encoder_layers[l];
    residual(c, layer.self_attn_norm, x, rows, z, [&](const float* in, float* out) {
      const size_t projected = static_cast<size_t>(rows) * width;
      float* q = reserve(z.q, projected);  // [N, H*dk]
      float* k = reserve(z.k, projected);
      float* v = reserve(z.v, projected);
      float* context = reserve(z.context, projected);
      ops::linear(layer.self_attn.q, in, rows, q);
      ops::linear(layer.self_attn.k, in, rows, k);
      ops::linear(layer.self_attn.v, in, rows, v);
      for (int b = 0; b < batch.sentences(); ++b) {
        const int first = batch.offsets[b], s = batch.length(b);
        const size_t at = static_cast<size_t>(first) * width;
        AttentionRecord* record = b < static_cast<int>(records.size()) ? records[b] : nullptr;
        if (record && !record->keeps_everything()) record = nullptr;  // cross attention only
        float* probs =
            record ? record->encoder_self.data() + static_cast<size_t>(l) * heads * s * s : nullptr;
        const bool inside = record && record->extras.attention();
        float* recorded = inside && record->extras.scores
                              ? reserve(scores_, static_cast<size_t>(heads) * s * s)  // [H][S][S]
                              : nullptr;
        // Each sentence attends only to its own rows: the same as a padding mask.
        multi_head_attention(
            q + at, k + at, v + at, s, s, heads, c.head_dim, false, context + at, probs, z.scores,
            head_mask_ ? head_mask_->layer(AttentionKind::kEncoder, l) : nullptr, scores, recorded);
        if (inside) {
          AttentionCall call;
          call.layer = l;
          call.queries = q + at;
          call.query_count = s;
          call.context = context + at;
          call.scores = recorded;
          call.key_count = s;
          call.keys = k + at;
          call.values = v + at;
          call.new_keys = s;
          call.out = &layer.self_attn.out;
          record_inside(record->extras, call, record->encoder_inside, inside_scratch_);
        }
      }
      ops::linear(layer.self_attn.out, context, rows, out);  // [N, d]
    });
    residual(c, layer.final_norm, x, rows, z, [&](const float* in, float* out) {
      feed_forward(c, layer.fc1, layer.fc1_linear, layer.fc2, in, rows, z, out);
    });
  }
  if (c.final_norms) normalize(c, weights_.encoder_final_norm, x, rows);
  return batch;
}

}  // namespace minimt
