// Renders an attention dump (attention_dump.h) as one self-contained HTML page: for each
// sentence, a grid of heatmaps per attention type (encoder self-attention, decoder masked
// self-attention, cross-attention), one per layer and head, drawn on canvases by the page's
// inline script. No network access, no external scripts or fonts.
#pragma once

#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace minimt {

// One attention type of one sentence, as the dump holds it.
struct AttentionMatrices {
  std::string type;                       // "encoder", "decoder" or "cross"
  std::vector<std::string> layer_labels;  // one per layer in the dump: "0", "2", or "-1"
  std::vector<int> heads;                 // head numbers, one per head in the dump
  int rows = 0, cols = 0;                 // queries, keys
  std::vector<float> values;              // [layers][heads][rows][cols]

  int layers() const { return static_cast<int>(layer_labels.size()); }
  float at(int layer, int head, int row, int col) const {
    return values[((static_cast<size_t>(layer) * heads.size() + head) * rows + row) * cols + col];
  }
};

struct DumpSentence {
  int number = 0;  // 1-based position in the dump
  std::string source, translation;
  std::string error;  // not empty: the sentence failed and has no matrices
  std::vector<std::string> source_tokens, decoder_input_tokens, output_tokens;
  std::vector<AttentionMatrices>
      attention;  // in the order encoder, decoder, cross; only those present
  bool blank() const { return error.empty() && source_tokens.empty(); }
};

struct AttentionDump {
  std::string model;
  std::vector<std::string> types;  // from "selection": what the dump was asked to keep
  std::vector<DumpSentence> sentences;
};

// Checks and converts a parsed dump; `name` prefixes error messages. Throws Error when the
// document is not a minimt-attention dump of version 1 or a matrix does not match its tokens.
// Copes with dumps holding only some types, layers or heads ("selection"), with failed
// sentences ("error") and with blank ones (empty token lists).
AttentionDump parse_attention_dump(const nlohmann::json& document, const std::string& name);
AttentionDump read_attention_dump(std::istream& in, const std::string& name);

// Labels of the layers a dump holds, from its "selection.layers" (null: all) and the number of
// matrices present. Non-negative selections that exceed a shallower stack are left out by the
// writer, which this undoes; negative ones stay as given ("-1": the last layer).
std::vector<std::string> dump_layer_labels(const nlohmann::json& selection_layers, int count);

struct ViewOptions {
  std::string title;           // empty: "minimt attention" and the model
  std::vector<int> sentences;  // 1-based numbers of the sentences to show; empty: all
};

struct ViewSummary {
  int sentences = 0;  // shown
  int heatmaps = 0;   // per-head heatmaps in the page (averages not counted)
  int averages = 0;   // average-over-heads heatmaps
};

// Writes the page. Throws Error if a requested sentence number is not in the dump.
ViewSummary write_attention_page(const AttentionDump& dump, std::ostream& out,
                                 const ViewOptions& options = {});

// A static SVG of one attention type of one sentence: a grid of heatmaps (rows = layers,
// columns = heads) with token labels, the colour scale and the causal mask hatched, for
// documents that cannot run scripts. Throws Error if the sentence lacks that type.
void write_attention_svg(const DumpSentence& sentence, const std::string& type, std::ostream& out);

// The page embeds each type's weights as base64 of little-endian IEEE half floats (3 significant
// digits, down to 6e-8): a third of the size of decimal text. Decoder self-attention keeps only
// the lower triangle (row i: keys 0..i); the rest is the causal mask.
uint16_t float_to_half(float value);
float half_to_float(uint16_t half);
std::string encode_weights(const std::vector<float>& values);
std::vector<float> decode_weights(const std::string& base64);

}  // namespace minimt
