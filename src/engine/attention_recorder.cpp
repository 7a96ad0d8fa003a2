#include "minimt/engine/attention_recorder.h"

#include <algorithm>

#include "minimt/engine/attention_inside.h"

namespace minimt {

namespace {

// Copies the weights of a run of n positions, probs [H][n][keys], into `slot` of the record
// steps first .. first+n-1, each [slots][H][its keys]. With causal, query i of the run sees
// keys 0 .. keys-n+i (the weights of later keys are exactly 0 and are not kept): the same rows
// n single steps would have recorded.
void keep_run(const float* probs, int n, int keys, int heads, int slot, bool causal,
              std::vector<std::vector<float>>& steps, size_t first) {
  for (int i = 0; i < n; ++i) {
    const int visible = causal ? keys - n + i + 1 : keys;
    float* row = steps[first + i].data() + static_cast<size_t>(slot) * heads * visible;
    for (int h = 0; h < heads; ++h) {
      const float* from = probs + (static_cast<size_t>(h) * n + i) * keys;
      std::copy(from, from + visible, row + static_cast<size_t>(h) * visible);
    }
  }
}

}  // namespace

bool AttentionRecorder::wants(ProbePoint point, AttentionKind kind, int layer) const {
  const RecordExtras& x = record_.extras;
  const bool kept =
      kind == AttentionKind::kCross ? record_.keeps_cross(layer) : record_.keeps_everything();
  switch (point) {
    case ProbePoint::kInput:
      return true;
    case ProbePoint::kWeights:
      return kept;
    case ProbePoint::kScores:
      return kept && x.scores;
    case ProbePoint::kQueries:
    case ProbePoint::kKeys:
      return kept && x.vectors;
    case ProbePoint::kValues:
      return kept && (x.vectors || x.norms);
    case ProbePoint::kHeadOutputs:
      return kept && x.norms;
    case ProbePoint::kLayerOutput:
      return kind == AttentionKind::kDecoder && x.layer_states;
  }
  return false;
}

void AttentionRecorder::see(const ProbeView& view) {
  switch (view.point) {
    case ProbePoint::kInput:
      open(view);
      break;
    case ProbePoint::kWeights:
      keep_weights(view);
      break;
    case ProbePoint::kScores:
    case ProbePoint::kQueries:
    case ProbePoint::kHeadOutputs:
      keep_queries(view);
      break;
    case ProbePoint::kKeys:
    case ProbePoint::kValues:
      keep_keys(view);
      break;
    case ProbePoint::kLayerOutput:
      keep_layer_state(view);
      break;
  }
}

void AttentionRecorder::open(const ProbeView& view) {
  AttentionRecord& r = record_;
  const Architecture& c = config_;
  const RecordExtras& x = r.extras;
  if (view.kind == AttentionKind::kEncoder) {
    if (!r.keeps_everything()) return;
    const size_t s = view.rows;
    r.encoder_self.assign(static_cast<size_t>(c.encoder_layers) * c.num_heads * s * s, 0.0f);
    if (!x.attention()) return;
    for (size_t i = 0; i < s; ++i) r.encoder_inside.add_query(x, view.rows);
    r.encoder_inside.add_keys(x, view.rows);
    return;
  }
  // One record step per new position: room for its attention rows.
  const int source = view.keys;
  const size_t per_layer = static_cast<size_t>(c.decoder_layers) * c.num_heads;
  const size_t per_cross =
      static_cast<size_t>(r.keeps_everything() ? c.decoder_layers : 1) * c.num_heads;
  for (int i = 0; i < view.rows; ++i) {
    const int position = view.first + i;
    if (r.keeps_everything()) r.decoder_self_steps.emplace_back(per_layer * (position + 1));
    r.cross_steps.emplace_back(per_cross * source);
    if (x.layer_states)
      r.layer_states.emplace_back(static_cast<size_t>(c.decoder_layers) * c.d_model);
    if (!x.attention()) continue;
    r.decoder_inside.add_query(x, position + 1);
    r.decoder_inside.add_keys(x, 1);
    r.cross_inside.add_query(x, source);
    if (position == 0) r.cross_inside.add_keys(x, source);
  }
}

void AttentionRecorder::keep_weights(const ProbeView& view) {
  AttentionRecord& r = record_;
  const int heads = config_.num_heads, n = view.rows, l = view.layer;
  switch (view.kind) {
    case AttentionKind::kEncoder: {
      const size_t block = static_cast<size_t>(heads) * n * n;  // [H][S][S]
      std::copy(view.data, view.data + block, r.encoder_self.begin() + l * block);
      break;
    }
    case AttentionKind::kDecoder:
      keep_run(view.data, n, view.keys, heads, l, true, r.decoder_self_steps,
               r.decoder_self_steps.size() - n);
      break;
    case AttentionKind::kCross:
      keep_run(view.data, n, view.keys, heads, r.cross_slot(l), false, r.cross_steps,
               r.cross_steps.size() - n);
      break;
  }
}

void AttentionRecorder::keep_queries(const ProbeView& view) {
  InsideRecord& in = inside(view.kind);
  const int heads = in.heads, width = in.width(), n = view.rows;
  const size_t row_at = static_cast<size_t>(view.layer) * width;
  const size_t head_at = static_cast<size_t>(view.layer) * heads;
  if (view.point == ProbePoint::kHeadOutputs) {
    norms_.resize(static_cast<size_t>(n) * heads);  // [n][H]
    head_output_norms(output_projection(view.kind, view.layer), view.data, n, heads, in.head_dim,
                      norms_.data(), scratch_);
  }
  const size_t first = in.queries.size() - n;  // the last n queries: these rows
  for (int i = 0; i < n; ++i) {
    InsideRecord::Query& query = in.queries.at(first + i);
    const float* row = view.data + static_cast<size_t>(i) * width;
    if (view.point == ProbePoint::kQueries)
      std::copy(row, row + width, query.vector.begin() + row_at);
    if (view.point == ProbePoint::kHeadOutputs)
      std::copy(norms_.begin() + static_cast<size_t>(i) * heads,
                norms_.begin() + static_cast<size_t>(i + 1) * heads,
                query.head_norms.begin() + head_at);
    if (view.point != ProbePoint::kScores) continue;
    for (int h = 0; h < heads; ++h) {
      const float* from = view.data + (static_cast<size_t>(h) * n + i) * view.keys;
      std::copy(from, from + query.visible,
                query.scores.begin() + (head_at + h) * static_cast<size_t>(query.visible));
    }
  }
}

void AttentionRecorder::keep_keys(const ProbeView& view) {
  InsideRecord& in = inside(view.kind);
  const RecordExtras& x = record_.extras;
  const int heads = in.heads, width = in.width(), n = view.rows;
  const bool values = view.point == ProbePoint::kValues;
  if (values && x.norms) {
    norms_.resize(static_cast<size_t>(n) * heads);  // [n][H]
    head_output_norms(output_projection(view.kind, view.layer), view.data, n, heads, in.head_dim,
                      norms_.data(), scratch_);
  }
  const size_t first = in.keys.size() - n;  // the last n keys: these rows
  const size_t row_at = static_cast<size_t>(view.layer) * width;
  const size_t head_at = static_cast<size_t>(view.layer) * heads;
  for (int j = 0; j < n; ++j) {
    InsideRecord::Key& key = in.keys.at(first + j);
    const float* row = view.data + static_cast<size_t>(j) * width;
    if (x.vectors) std::copy(row, row + width, (values ? key.value : key.key).begin() + row_at);
    if (values && x.norms)
      std::copy(norms_.begin() + static_cast<size_t>(j) * heads,
                norms_.begin() + static_cast<size_t>(j + 1) * heads,
                key.value_norms.begin() + head_at);
  }
}

void AttentionRecorder::keep_layer_state(const ProbeView& view) {
  const int d = config_.d_model;
  std::vector<std::vector<float>>& states = record_.layer_states;
  const size_t first = states.size() - view.rows;  // the steps of these rows
  for (int i = 0; i < view.rows; ++i) {
    const float* row = view.data + static_cast<size_t>(i) * d;
    std::copy(row, row + d, states[first + i].begin() + static_cast<size_t>(view.layer) * d);
  }
}

InsideRecord& AttentionRecorder::inside(AttentionKind kind) {
  switch (kind) {
    case AttentionKind::kEncoder:
      return record_.encoder_inside;
    case AttentionKind::kDecoder:
      return record_.decoder_inside;
    case AttentionKind::kCross:
      break;
  }
  return record_.cross_inside;
}

const Linear& AttentionRecorder::output_projection(AttentionKind kind, int layer) const {
  switch (kind) {
    case AttentionKind::kEncoder:
      return weights_.encoder_layers[layer].self_attn.out;
    case AttentionKind::kDecoder:
      return weights_.decoder_layers[layer].self_attn.out;
    case AttentionKind::kCross:
      break;
  }
  return weights_.decoder_layers[layer].cross_attn.out;
}

}  // namespace minimt
