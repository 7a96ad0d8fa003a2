// The parts of the page's data (src/app/views/page/data.js reads them) that the attention page
// (attention_page.cpp) and the page of two runs' difference (difference_page.cpp) share.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/record/dump_reader.h"

namespace minimt::page_data {

// The sentences numbered `numbers` (from 1, each once, in the order given); empty: all. Throws
// Error for a number the dump lacks.
std::vector<const DumpSentence*> chosen_sentences(const AttentionDump& dump,
                                                  const std::vector<int>& numbers);

// Base64 of little-endian IEEE single floats (data.js: decodeFloats).
std::string encode_floats(const std::vector<float>& values);

// The values of m in the order data.js unpacks them: for a causal type (`lower`) only the lower
// triangle of each map, the rest being the mask.
std::vector<float> kept_values(const AttentionMatrices& m, bool lower);

// A [rows][cols] map in the order data.js unpacks it: for a causal map (`lower`) only the lower
// triangle, the rest being the mask.
std::vector<float> kept_map(const std::vector<float>& values, int rows, int cols, bool lower);

// One attribution map (--attribute; [rows][cols], NaN above the diagonal of the [T][T] one) packed
// as data.js reads weights: one layer ("attribution"), one head, the lower triangle only when
// `lower`. Throws Error when it does not hold rows x cols values.
nlohmann::json packed_attribution(const std::vector<float>& values, int rows, int cols, bool lower,
                                  const std::string& what);

// Per layer, the numbers of the heads --mask-heads switched off ([] for a layer with none).
nlohmann::json masked_heads(const AttentionMatrices& m);

// A sentence's entry before its numbers: its number, texts, tokens, error, an empty
// "attention" object; the caller adds output_log_probs, alternatives and the weights.
nlohmann::json sentence_texts(const DumpSentence& s);

// The logit lens of a sentence (--logit-lens): "layers", its labels, and "predictions", per
// decoder layer and position the [token, probability] pairs kept, best first (lens.js).
nlohmann::json lens(const DumpSentence& s);

// The attributions of a sentence (--attribute) as data.js reads them (attribution()): per method,
// "source" [T][S] and "target" [T][T] (packed_attribution), and for integrated gradients its
// "steps", "rule" and "gap", each output token's completeness gap as single floats.
nlohmann::json attributions(const DumpSentence& s);

// What the page's script knows of each attention type and rollout (data.js: KINDS).
nlohmann::json kinds();

// The page with `data` in it; `live`: minimt serve's page.
void write_page(std::ostream& out, const nlohmann::json& data, bool live);

}  // namespace minimt::page_data
