// The attention dump's format, shared by its recorder, writer and reader (the table of
// src/app/record/dump_keys.cpp): the key names and, per attention type, which tokens index its
// rows and columns. The page (src/app/views/page/) reads the viewer's own data, not the dump.
//
// {"format": "minimt-attention", "version": 1, "model": DIR,
//  "compute_type": "float32", "int8" or "bf16",
//  "selection": {"types": [TYPE...], "layers": [INT...] or null, "heads": [INT...],
//                "encoder_layers": [INT...], "decoder_layers": [INT...],
//                "encoder_depth": INT, "decoder_depth": INT (only with layers)},
//  "masked_heads": "TYPE:LAYER:HEAD,..." (only with --mask-heads),
//  "notes": [S...] (only for a model whose attention reads differently: format 2),
//  "sentences": [{"source": S, "translation": S  or  "error": S,
//                 "source_tokens": [S...], "decoder_input_tokens": [S...],
//                 "output_tokens": [S...], "output_log_probs": [F...],
//                 "alternatives": [[{"token": S, "probability": F}...]...],
//                 KEY: [layer][head][row][col] for each type kept,
//                 "encoder_rollout": [S][S], "cross_rollout": [T][S] (only with --rollout),
//                 PREFIX_scores: [layer][head][row][col], null where the causal mask is
//                 (--dump-scores); PREFIX_queries [layer][head][row][d_k], PREFIX_keys
//                 [layer][head][col][d_k], PREFIX_values [layer][head][col][d_v]
//                 (--dump-vectors); PREFIX_weighted_norms [layer][head][row][col],
//                 PREFIX_head_norms [layer][head][row] (--dump-norms), for each type kept;
//                 "decoder_layer_predictions": [layer][T][{"token", "probability"}...]
//                 (--logit-lens K, whatever the types kept),
//                 "attributions": {METHOD: {"source", "target"...}} (--attribute)}]}
// output_log_probs (one per output token) and alternatives (the most likely tokens at each
// output position) are optional: dumps written before them are read as they were. So are
// compute_type and the selection's encoder_layers and decoder_layers (the layer numbers the
// selection's "layers" gave in each stack, negative ones counted from its end). So are the
// rollouts (rollout.h), computed from every layer and head whatever the selection keeps; the
// cross rollout reads the last decoder layer's cross-attention averaged over its heads. The
// extras (PREFIX_... and decoder_layer_predictions) are optional too, absent unless asked for;
// docs/model-format.md says what each holds.
#pragma once

#include <string>

namespace minimt::dump_schema {

inline constexpr char kFormatName[] = "minimt-attention";
inline constexpr int kVersion = 1;

inline constexpr char kFormat[] = "format";
inline constexpr char kVersionKey[] = "version";
inline constexpr char kModel[] = "model";
inline constexpr char kComputeType[] = "compute_type";
inline constexpr char kSelection[] = "selection";
inline constexpr char kTypes[] = "types";  // in "selection"
inline constexpr char kLayers[] = "layers";
inline constexpr char kHeads[] = "heads";
inline constexpr char kEncoderLayers[] = "encoder_layers";  // in "selection", with "layers"
inline constexpr char kDecoderLayers[] = "decoder_layers";
// In "selection", with "layers": the model's layers in each stack, so that a negative layer
// read later counts from the model's last layer, not from the last layer the dump holds.
inline constexpr char kEncoderDepth[] = "encoder_depth";
inline constexpr char kDecoderDepth[] = "decoder_depth";
inline constexpr char kSentences[] = "sentences";
inline constexpr char kMaskedHeads[] = "masked_heads";  // optional: "cross:2:1,..." (--mask-heads)
// Optional (--attribute): what the attributions were computed in, "float32" whatever the
// compute type (an int8 or bf16 model's on its dequantized weights).
inline constexpr char kAttributionComputeType[] = "attribution_compute_type";
inline constexpr char kAttributionPrecision[] = "float32";
inline constexpr char kNotes[] = "notes";    // optional: what the numbers mean for this model
inline constexpr char kSource[] = "source";  // in each sentence
inline constexpr char kTranslation[] = "translation";
inline constexpr char kError[] = "error";
inline constexpr char kSourceTokens[] = "source_tokens";
inline constexpr char kDecoderInputTokens[] = "decoder_input_tokens";
inline constexpr char kOutputTokens[] = "output_tokens";
inline constexpr char kOutputLogProbs[] = "output_log_probs";
inline constexpr char kAlternatives[] = "alternatives";
// Optional: how many output tokens, from the first, were given (score's target, a prefix)
// rather than predicted; absent: none.
inline constexpr char kGivenTokens[] = "given_tokens";
inline constexpr char kToken[] = "token";  // in each alternative
inline constexpr char kProbability[] = "probability";
inline constexpr char kEncoderRollout[] = "encoder_rollout";  // optional, [S][S]
inline constexpr char kCrossRollout[] = "cross_rollout";      // optional, [T][S]
// Optional, after a type's prefix (AttentionType::prefix): --dump-scores, --dump-vectors,
// --dump-norms.
inline constexpr char kScoresSuffix[] = "_scores";                 // [layer][head][row][col]
inline constexpr char kQueriesSuffix[] = "_queries";               // [layer][head][row][d_k]
inline constexpr char kKeysSuffix[] = "_keys";                     // [layer][head][col][d_k]
inline constexpr char kValuesSuffix[] = "_values";                 // [layer][head][col][d_v]
inline constexpr char kWeightedNormsSuffix[] = "_weighted_norms";  // [layer][head][row][col]
inline constexpr char kHeadNormsSuffix[] = "_head_norms";          // [layer][head][row]
// Optional (--logit-lens K): [decoder layer][T][{"token", "probability"}...], best first.
inline constexpr char kDecoderLayerPredictions[] = "decoder_layer_predictions";
// Optional (--attribute): {METHOD: {"source": [T][S], "target": [T][T] (null for j > t)},
// integrated_gradients also "completeness_gap": [T], "steps": m, "rule": R}.
inline constexpr char kAttributions[] = "attributions";

// Which token list indexes a matrix's rows or columns.
enum class Axis { kSource, kDecoderInput };

struct AttentionType {
  const char* type;    // the name in selection.types: "encoder", "decoder" or "cross"
  const char* key;     // the sentence's key holding its matrices
  Axis rows, cols;     // queries, keys
  bool causal;         // decoder self-attention: keys after the query are masked (weight 0)
  const char* prefix;  // of the extras' keys: PREFIX_scores, PREFIX_queries, ...
};

// In the order the writer writes them and the page shows them.
inline constexpr AttentionType kAttentionTypes[] = {
    {"encoder", "encoder_self_attention", Axis::kSource, Axis::kSource, false, "encoder_self"},
    {"decoder", "decoder_self_attention", Axis::kDecoderInput, Axis::kDecoderInput, true,
     "decoder_self"},
    {"cross", "cross_attention", Axis::kDecoderInput, Axis::kSource, false, "cross"},
};

// A key of the extras: the type's prefix and a suffix ("cross" and "_scores": "cross_scores").
inline std::string extra_key(const AttentionType& type, const char* suffix) {
  return std::string(type.prefix) + suffix;
}

// nullptr if `type` is not one of them.
inline const AttentionType* find_attention_type(const std::string& type) {
  for (const AttentionType& t : kAttentionTypes)
    if (type == t.type) return &t;
  return nullptr;
}

// Whether the matrices under `key`, a type's name or an extra's key, lie under the causal mask
// above the diagonal: the causal type's weights and its scores (null there in the dump).
inline bool causal_matrices(const std::string& key) {
  for (const AttentionType& t : kAttentionTypes)
    if (t.causal && (key == t.type || key == extra_key(t, kScoresSuffix))) return true;
  return false;
}

}  // namespace minimt::dump_schema
