#include "minimt/attention_dump.h"

#include <charconv>

#include "minimt/error.h"

namespace minimt {
namespace {

std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void write_number(std::ostream& out, float value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round-trip
  out.write(buffer, result.ptr - buffer);
}

std::string join_ints(const std::vector<int>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

// Writes [layer][head][rows][cols] for the chosen layers and heads; value(l, h, i, j).
template <typename Value>
void write_matrices(std::ostream& out, const std::vector<int>& layers,
                    const std::vector<int>& heads, int rows, int cols, Value value) {
  out << '[';
  for (size_t a = 0; a < layers.size(); ++a) {
    out << (a ? ",[" : "[");
    for (size_t b = 0; b < heads.size(); ++b) {
      out << (b ? ",[" : "[");
      for (int i = 0; i < rows; ++i) {
        out << (i ? ",[" : "[");
        for (int j = 0; j < cols; ++j) {
          if (j) out << ',';
          write_number(out, value(layers[a], heads[b], i, j));
        }
        out << ']';
      }
      out << ']';
    }
    out << ']';
  }
  out << ']';
}

}  // namespace

AttentionDumpWriter::AttentionDumpWriter(std::ostream& out, const Model& model,
                                         DumpSelection selection)
    : out_(out), model_(model), selection_(std::move(selection)) {
  const ModelConfig& c = model.config();
  for (int head : selection_.heads)
    if (head < 0 || head >= c.num_heads)
      throw Error("attention dump: head " + std::to_string(head) +
                  " does not exist (the model has " + std::to_string(c.num_heads) +
                  " heads, numbered from 0)");
  if (selection_.heads.empty())
    for (int h = 0; h < c.num_heads; ++h) heads_.push_back(h);
  else
    heads_ = selection_.heads;
  int deepest = std::max(c.encoder_layers, c.decoder_layers);
  for (int layer : selection_.layers)
    if (layer >= deepest || layer < -std::min(c.encoder_layers, c.decoder_layers))
      throw Error("attention dump: layer " + std::to_string(layer) + " does not exist (" +
                  std::to_string(c.encoder_layers) + " encoder and " +
                  std::to_string(c.decoder_layers) + " decoder layers)");

  std::vector<std::string> types;
  if (selection_.encoder) types.push_back("\"encoder\"");
  if (selection_.decoder) types.push_back("\"decoder\"");
  if (selection_.cross) types.push_back("\"cross\"");
  std::string type_list;
  for (size_t i = 0; i < types.size(); ++i) type_list += (i ? "," : "") + types[i];
  out_ << "{\"format\":\"minimt-attention\",\"version\":1,\"model\":" << quoted(model.directory())
       << ",\"selection\":{\"types\":[" << type_list
       << "],\"layers\":" << (selection_.layers.empty() ? "null" : join_ints(selection_.layers))
       << ",\"heads\":" << join_ints(heads_) << "},\n\"sentences\":[";
}

std::vector<int> AttentionDumpWriter::resolve_layers(int count) const {
  std::vector<int> layers;
  if (selection_.layers.empty())
    for (int l = 0; l < count; ++l) layers.push_back(l);
  for (int layer : selection_.layers) {
    int index = layer < 0 ? count + layer : layer;
    if (index >= 0 && index < count) layers.push_back(index);
  }
  return layers;
}

void AttentionDumpWriter::write_tokens(const char* key, const std::vector<std::string>& pieces) {
  out_ << ",\"" << key << "\":[";
  for (size_t i = 0; i < pieces.size(); ++i) out_ << (i ? "," : "") << quoted(pieces[i]);
  out_ << ']';
}

void AttentionDumpWriter::add(const Translation& t) {
  const ModelConfig& c = model_.config();
  out_ << (first_ ? "\n" : ",\n") << "{\"source\":" << quoted(t.source);
  first_ = false;
  if (!t.ok()) {
    out_ << ",\"error\":" << quoted(t.error) << '}';
    return;
  }
  out_ << ",\"translation\":" << quoted(t.text);
  const Tokenizer& source = model_.source_tokenizer();
  const Tokenizer& target = model_.target_tokenizer();
  std::vector<std::string> source_pieces, input_pieces, output_pieces;
  for (int id : t.source_ids) source_pieces.push_back(source.piece(id));
  for (size_t i = 0; i < t.output_ids.size(); ++i) {
    input_pieces.push_back(target.piece(i == 0 ? c.decoder_start_token : t.output_ids[i - 1]));
    output_pieces.push_back(target.piece(t.output_ids[i]));
  }
  write_tokens("source_tokens", source_pieces);
  write_tokens("decoder_input_tokens", input_pieces);
  write_tokens("output_tokens", output_pieces);

  const AttentionRecord empty;
  const AttentionRecord& r = t.attention ? *t.attention : empty;
  const int s = static_cast<int>(t.source_ids.size());
  const int steps = r.steps();
  const std::vector<int> encoder_layers = resolve_layers(t.attention ? c.encoder_layers : 0);
  const std::vector<int> decoder_layers = resolve_layers(t.attention ? c.decoder_layers : 0);
  if (selection_.encoder) {
    out_ << ",\n \"encoder_self_attention\":";
    write_matrices(out_, encoder_layers, heads_, s, s,
                   [&](int l, int h, int i, int j) { return r.encoder(l, h, i, j); });
  }
  if (selection_.decoder) {
    out_ << ",\n \"decoder_self_attention\":";
    write_matrices(out_, decoder_layers, heads_, steps, steps,
                   [&](int l, int h, int i, int j) { return r.decoder_self(l, h, i, j); });
  }
  if (selection_.cross) {
    out_ << ",\n \"cross_attention\":";
    write_matrices(out_, decoder_layers, heads_, steps, s,
                   [&](int l, int h, int i, int j) { return r.cross(l, h, i, j); });
  }
  out_ << '}';
}

void AttentionDumpWriter::finish() {
  out_ << "\n]}\n";
}

}  // namespace minimt
