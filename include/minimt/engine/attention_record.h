// AttentionRecord: the attention weights of one sentence, filled by the encoder and decoder:
// all of them, or (alignment) only one decoder layer's cross attention; and, when asked, what
// the weights come from (RecordExtras: scores, vectors, norms, each decoder layer's output).
#pragma once

#include <cstddef>
#include <vector>

#include "minimt/engine/architecture.h"

namespace minimt {

// What a record keeps besides the weights, each only when asked: it costs time and memory.
struct RecordExtras {
  bool scores = false;        // the softmax's input of every entry the causal mask keeps
  bool vectors = false;       // each position's query, key and value rows (bias included)
  bool norms = false;         // ||v_j W_O^h|| per key, ||sum_j a_ij v_j W_O^h|| per query
  bool layer_states = false;  // each decoder layer's output at each position (the logit lens)
  bool attention() const { return scores || vectors || norms; }
};

// One attention type's extras (RecordExtras), by position: one Query per row of its weights,
// one Key per column. Each entry holds every layer of the type; only what was asked is filled.
struct InsideRecord {
  struct Query {
    int visible = 0;                // the keys it may read (the causal mask hides the rest)
    std::vector<float> scores;      // [L][H][visible]
    std::vector<float> vector;      // [L][H*dk]: the query row
    std::vector<float> head_norms;  // [L][H]: ||sum_j a_ij v_j W_O^h||
  };
  struct Key {
    std::vector<float> key, value;   // [L][H*dk] each
    std::vector<float> value_norms;  // [L][H]: ||v_j W_O^h||
  };
  int layers = 0, heads = 0, head_dim = 0;
  std::vector<Query> queries;
  std::vector<Key> keys;

  int width() const { return heads * head_dim; }
  // Room for one more query that reads `visible` keys, and for `count` more keys.
  void add_query(const RecordExtras& extras, int visible);
  void add_keys(const RecordExtras& extras, int count);

  float score(int layer, int head, int i, int j) const {  // j < queries[i].visible
    const Query& q = queries[i];
    return q.scores[(static_cast<size_t>(layer) * heads + head) * q.visible + j];
  }
  float head_norm(int layer, int head, int i) const {
    return queries[i].head_norms[static_cast<size_t>(layer) * heads + head];
  }
  float value_norm(int layer, int head, int j) const {
    return keys[j].value_norms[static_cast<size_t>(layer) * heads + head];
  }
  // Element d of head h's slice of a row of [L][H*dk].
  float slice(const std::vector<float>& rows, int layer, int head, int d) const {
    return rows[static_cast<size_t>(layer) * width() + head * head_dim + d];
  }
};

struct AttentionRecord {
  int encoder_layers = 0, decoder_layers = 0, heads = 0;
  int source_length = 0;  // S
  // What the passes fill; the rest stays empty. Everything unless set otherwise: an alignment
  // reads only one decoder layer's cross attention (cross_only_layer >= 0), and recording the
  // other layers and kinds would only cost time.
  int cross_only_layer = -1;
  std::vector<float> encoder_self;  // [Le][H][S][S]; empty with cross_only_layer
  // One entry per decoder step t (T in all): the row the step's query produced.
  std::vector<std::vector<float>> decoder_self_steps;  // step t: [Ld][H][t+1]; or none
  std::vector<std::vector<float>> cross_steps;         // step t: [Ld or 1][H][S]
  // The extras asked for (with everything kept only), and what they hold.
  RecordExtras extras;
  InsideRecord encoder_inside, decoder_inside, cross_inside;
  std::vector<std::vector<float>> layer_states;  // step t: [Ld][d_model], with extras.layer_states

  // An empty record for a sentence of source_length pieces in a model of this architecture,
  // for the passes to fill; cross_only_layer >= 0 keeps only that decoder layer's cross
  // attention.
  static AttentionRecord for_sentence(const Architecture& a, int source_length,
                                      int cross_only_layer = -1, RecordExtras extras = {}) {
    AttentionRecord record;
    record.encoder_layers = a.encoder_layers;
    record.decoder_layers = a.decoder_layers;
    record.heads = a.num_heads;
    record.source_length = source_length;
    record.cross_only_layer = cross_only_layer;
    if (cross_only_layer < 0) record.extras = extras;
    record.encoder_inside = {a.encoder_layers, a.num_heads, a.head_dim, {}, {}};
    record.decoder_inside = {a.decoder_layers, a.num_heads, a.head_dim, {}, {}};
    record.cross_inside = record.decoder_inside;
    return record;
  }

  int steps() const { return static_cast<int>(cross_steps.size()); }
  bool keeps_everything() const { return cross_only_layer < 0; }
  // Whether the record keeps layer l's cross attention.
  bool keeps_cross(int layer) const { return cross_only_layer < 0 || layer == cross_only_layer; }
  // Layer l's place among the cross layers kept (l must be kept).
  int cross_slot(int layer) const { return cross_only_layer < 0 ? layer : 0; }

  // Weight that decoder query t gives key j in layer l, head h (0 for j > t: the causal mask).
  float decoder_self(int layer, int head, int t, int j) const {
    if (j > t) return 0.0f;
    return decoder_self_steps[t][(static_cast<size_t>(layer) * heads + head) * (t + 1) + j];
  }
  float cross(int layer, int head, int t, int j) const {
    return cross_steps[t]
                      [(static_cast<size_t>(cross_slot(layer)) * heads + head) * source_length + j];
  }
  float encoder(int layer, int head, int i, int j) const {
    size_t s = source_length;
    return encoder_self[((static_cast<size_t>(layer) * heads + head) * s + i) * s + j];
  }
};

}  // namespace minimt
