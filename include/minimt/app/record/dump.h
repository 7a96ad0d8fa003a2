// The attention dump in memory: what a run records of each translated sentence (dump_recorder.h
// fills it from a translation), what the dump's JSON holds (attention_dump.h writes it,
// dump_reader.h reads it back into the same struct) and what the views draw (the page, the SVG,
// the terminal, the differences). dump_schema.h names the JSON's keys; src/app/record/dump_keys.h
// is the one table of a sentence's keys: how each is recorded, written and read.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "minimt/app/record/dump_schema.h"

namespace minimt {

// Which parts of the attention to keep. Empty types, layers or heads mean all of them; a
// negative layer counts from the end (-1 is the last layer of each stack).
struct DumpSelection {
  std::vector<std::string> types;  // dump_schema.h's type names ("encoder", "cross", ...)
  std::vector<int> layers, heads;
  std::string masked_heads;   // --mask-heads as "cross:2:1,...": written as "masked_heads"
  bool rollout = false;       // --rollout: each sentence's encoder_rollout and cross_rollout
  bool scores = false;        // --dump-scores: <type>_scores beside each type's weights
  bool vectors = false;       // --dump-vectors: <type>_queries, _keys, _values
  bool norms = false;         // --dump-norms: <type>_weighted_norms, _head_norms
  int logit_lens = 0;         // --logit-lens K: decoder_layer_predictions (K tokens each)
  bool attributions = false;  // --attribute: each sentence's attributions (DumpAttribution)
};

// One attention type of one sentence, as the dump holds it; or one of a type's extras
// (dump_schema.h: scores, vectors, norms), whose rows and cols are the lengths of its two inner
// lists (head norms: one column).
struct AttentionMatrices {
  std::string type;                       // "encoder", "decoder", "cross"; an extra's key
  std::vector<std::string> layer_labels;  // one per layer in the dump: "0", "2", or "-1"
  int model_layers = 0;                   // the model's layers of this stack; 0: not known
  std::vector<int> heads;                 // head numbers, one per head in the dump
  int rows = 0, cols = 0;                 // queries, keys
  std::vector<float> values;              // [layers][heads][rows][cols]
  // [layers][heads]: 1 for a head --mask-heads switched off (the dump's "masked_heads"), whose
  // weights are all 0; empty when none is.
  std::vector<char> masked;
  // Weights without queries or keys (a translation of no token) have no layers here; the dump
  // lists this many all the same, each with an empty list per head.
  int empty_layers = 0;

  int layers() const { return static_cast<int>(layer_labels.size()); }
  float at(int layer, int head, int row, int col) const {
    return values[((static_cast<size_t>(layer) * heads.size() + head) * rows + row) * cols + col];
  }
  bool is_masked(int layer, int head) const {
    return !masked.empty() && masked[static_cast<size_t>(layer) * heads.size() + head];
  }
  // The positions (into `heads`) of layer `layer`'s heads that are not masked: what its average
  // is over. Every head when all are masked (their average is then 0 as theirs is).
  std::vector<int> averaged_heads(int layer) const;
  // The mean of those heads' weights, [rows][cols].
  std::vector<float> head_average(int layer) const;
};

// A rollout matrix (--rollout; rollout.h) as the dump holds it: [rows][cols].
struct DumpRollout {
  bool present = false;  // false: the dump has none
  int rows = 0, cols = 0;
  std::vector<float> values;
  float at(int row, int col) const { return values[static_cast<size_t>(row) * cols + col]; }
};

// One method's attributions of a sentence (--attribute; docs/model-format.md, "Attributions"),
// with T output tokens and S source tokens.
struct DumpAttribution {
  std::string method;                   // saliency, input_x_gradient, integrated_gradients, ...
  std::vector<float> source;            // [T][S]
  std::vector<float> target;            // [T][T]: NaN (null in the dump) for j > t
  std::vector<float> completeness_gap;  // [T]: integrated_gradients only
  int steps = 0;                        // integrated_gradients: m and the rule
  std::string rule;
};

// The most likely tokens at one position and their probabilities, best first.
using TokenChoices = std::vector<std::pair<std::string, float>>;

struct DumpSentence {
  int number = 0;  // 1-based position in the dump
  std::string source, translation;
  std::string error;  // not empty: the sentence failed and has no matrices
  std::vector<std::string> source_tokens, decoder_input_tokens, output_tokens;
  std::vector<float> output_log_probs;  // one per output token, or none (older dumps)
  int given_tokens = 0;  // the first output tokens given (score's target, a prefix), not predicted
  // Per output token, or none: the most likely tokens there and their probabilities.
  std::vector<TokenChoices> alternatives;
  std::vector<AttentionMatrices>
      attention;  // in the order encoder, decoder, cross; only those present
  // The extras present (--dump-scores, --dump-vectors, --dump-norms), each under its key in
  // .type, in the dump's order; a score under the causal mask (null in the dump) is NaN.
  std::vector<AttentionMatrices> extras;
  // --logit-lens: per decoder layer in the dump, per decoder position, the most likely tokens
  // there and their probabilities; empty without it.
  std::vector<std::vector<TokenChoices>> layer_predictions;
  std::vector<std::string> lens_layer_labels;  // one per entry of layer_predictions
  bool lens_present = false;                   // the dump has decoder_layer_predictions
  DumpRollout encoder_rollout;                 // [source tokens][source tokens]
  DumpRollout cross_rollout;                   // [decoder input tokens][source tokens]
  std::vector<DumpAttribution> attributions;   // --attribute: per method, in the engine's order
  bool blank() const { return error.empty() && source_tokens.empty(); }
  // The tokens along one axis of a matrix.
  const std::vector<std::string>& tokens(dump_schema::Axis axis) const {
    return axis == dump_schema::Axis::kSource ? source_tokens : decoder_input_tokens;
  }
  // The matrices of one type; nullptr if the dump has none.
  const AttentionMatrices* find(const std::string& type) const {
    for (const AttentionMatrices& m : attention)
      if (m.type == type) return &m;
    return nullptr;
  }
  // An extra by its key ("cross_scores"); nullptr if the dump has none.
  const AttentionMatrices* find_extra(const std::string& key) const {
    for (const AttentionMatrices& m : extras)
      if (m.type == key) return &m;
    return nullptr;
  }
};

// What a dump's "selection" says of the layers and heads it keeps.
struct DumpKept {
  std::vector<int> heads;                           // the head numbers
  bool all_layers = true;                           // "layers": null
  std::vector<int> layers;                          // else: as asked (negative from the end)
  std::vector<int> encoder_layers, decoder_layers;  // their numbers in each stack
  int encoder_depth = 0, decoder_depth = 0;         // the model's layers in each stack
};

struct AttentionDump {
  std::string model;
  std::string compute_type;        // float32, int8 or bf16; "" in dumps written before it was kept
  std::string masked_heads;        // --mask-heads as "cross:2:1,..."; "" for none
  std::vector<std::string> notes;  // what the scores include for this model ("notes")
  std::string attribution_compute_type;  // "float32" with --attribute; "" without
  std::vector<std::string> types;  // from "selection": what the dump was asked to keep
  DumpKept kept;                   // the rest of "selection"
  std::vector<DumpSentence> sentences;
};

}  // namespace minimt
