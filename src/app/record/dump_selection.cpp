#include "app/record/dump_selection.h"

#include <algorithm>
#include <stdexcept>

#include "minimt/base/error.h"

namespace minimt {

using nlohmann::json;

namespace dump_read {
namespace {

namespace schema = dump_schema;

// The integers of an optional list; empty when it is absent.
std::vector<int> int_list(const json& value, const std::string& where) {
  std::vector<int> out;
  if (value.is_null()) return out;
  if (!value.is_array()) throw Error(where + " is not a list");
  for (const json& x : value) {
    if (!x.is_number_integer()) throw Error(where + " holds a non-integer");
    out.push_back(x.get<int>());
  }
  return out;
}

// "encoder:0:1,cross:2:3" (HeadMask::to_string) as (type, layer, head) triples.
std::set<std::tuple<std::string, int, int>> masked_heads(const std::string& text,
                                                         const std::string& where) {
  std::set<std::tuple<std::string, int, int>> out;
  for (size_t start = 0; start < text.size();) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const size_t first = item.find(':'), second = item.find(':', first + 1);
    int layer = 0, head = 0;
    size_t used_layer = 0, used_head = 0;
    try {
      if (first == std::string::npos || second == std::string::npos)
        throw std::invalid_argument("");
      const std::string layer_text = item.substr(first + 1, second - first - 1);
      const std::string head_text = item.substr(second + 1);
      layer = std::stoi(layer_text, &used_layer);
      head = std::stoi(head_text, &used_head);
      if (used_layer != layer_text.size() || used_head != head_text.size())
        throw std::invalid_argument("");
    } catch (const std::logic_error&) {
      throw Error(where + ": \"masked_heads\" holds '" + item + "', not TYPE:LAYER:HEAD");
    }
    out.insert({item.substr(0, first), layer, head});
    start = comma + 1;
  }
  return out;
}

// A stack's depth in "selection": absent (0), or a whole number of layers a model can have.
int depth(const json& selection, const char* key, const std::string& name) {
  const json value = selection.value(key, json());
  if (value.is_null()) return 0;
  if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 65536)
    throw Error(name + ": selection." + key + " is not a number of layers from 1 to 65536");
  return value.get<int>();
}

}  // namespace

std::vector<std::string> string_list(const json& value, const std::string& where) {
  if (value.is_null()) return {};
  if (!value.is_array()) throw Error(where + " is not a list");
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string()) throw Error(where + " holds something other than strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::string string_field(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  if (!it->is_string()) throw Error(where + ": \"" + key + "\" is not a string");
  return it->get<std::string>();
}

Selection read_selection(const json& document, const std::string& name, AttentionDump& dump) {
  const json selection = document.value(schema::kSelection, json::object());
  if (!selection.is_object()) throw Error(name + ": \"selection\" is not an object");
  const json types = selection.value(schema::kTypes, json());
  if (types.is_array()) {
    for (const json& t : types) {
      if (!t.is_string()) throw Error(name + ": selection.types holds a non-string");
      if (!schema::find_attention_type(t.get<std::string>()))
        throw Error("attention view: unknown attention type " + t.get<std::string>());
      dump.types.push_back(t.get<std::string>());
    }
  } else {
    for (const schema::AttentionType& type : schema::kAttentionTypes)
      dump.types.push_back(type.type);
  }
  Selection out;
  const json heads = selection.value(schema::kHeads, json());
  out.heads_given = heads.is_array();
  if (out.heads_given)
    for (const json& h : heads) {
      if (!h.is_number_integer()) throw Error(name + ": selection.heads holds a non-integer");
      out.heads.push_back(h.get<int>());
    }
  out.layers = selection.value(schema::kLayers, json());
  out.encoder_layers = int_list(selection.value(schema::kEncoderLayers, json()),
                                name + ": selection.encoder_layers");
  out.decoder_layers = int_list(selection.value(schema::kDecoderLayers, json()),
                                name + ": selection.decoder_layers");
  out.encoder_depth = depth(selection, schema::kEncoderDepth, name);
  out.decoder_depth = depth(selection, schema::kDecoderDepth, name);
  dump.masked_heads = string_field(document, schema::kMaskedHeads, name);
  out.masked = masked_heads(dump.masked_heads, name);
  dump.kept.heads = out.heads;
  dump.kept.all_layers = out.layers.is_null();
  if (out.layers.is_array())
    for (const json& x : out.layers)
      if (x.is_number_integer()) dump.kept.layers.push_back(x.get<int>());
  dump.kept.encoder_layers = out.encoder_layers;
  dump.kept.decoder_layers = out.decoder_layers;
  dump.kept.encoder_depth = out.encoder_depth;
  dump.kept.decoder_depth = out.decoder_depth;
  return out;
}

Selection kept_selection(const AttentionDump& header) {
  const DumpKept& kept = header.kept;
  Selection out;
  out.heads = kept.heads;
  out.heads_given = true;
  out.layers = kept.all_layers ? json() : json(kept.layers);
  out.encoder_layers = kept.encoder_layers;
  out.decoder_layers = kept.decoder_layers;
  out.encoder_depth = kept.encoder_depth;
  out.decoder_depth = kept.decoder_depth;
  out.masked = masked_heads(header.masked_heads, header.model);
  return out;
}

std::vector<std::string> layer_labels(const schema::AttentionType& type, const Selection& selection,
                                      int count) {
  const std::vector<int>& numbers =
      std::string(type.type) == "encoder" ? selection.encoder_layers : selection.decoder_layers;
  if (static_cast<int>(numbers.size()) != count) return dump_layer_labels(selection.layers, count);
  std::vector<std::string> labels;
  for (int n : numbers) labels.push_back(std::to_string(n));
  return labels;
}

int model_layers(const schema::AttentionType& type, const Selection& selection, int count) {
  if (selection.layers.is_null()) return count;
  return std::string(type.type) == "encoder" ? selection.encoder_depth : selection.decoder_depth;
}

void mark_masked(AttentionMatrices& m, const Selection& selection) {
  if (selection.masked.empty()) return;
  m.masked.assign(m.layer_labels.size() * m.heads.size(), 0);
  for (int l = 0; l < m.layers(); ++l) {
    int layer = 0;
    try {
      layer = std::stoi(m.layer_labels[l]);
    } catch (const std::logic_error&) {
      continue;
    }
    for (size_t h = 0; h < m.heads.size(); ++h)
      m.masked[l * m.heads.size() + h] = selection.masked.count({m.type, layer, m.heads[h]}) > 0;
  }
}

}  // namespace dump_read

std::vector<int> AttentionMatrices::averaged_heads(int layer) const {
  std::vector<int> kept;
  for (int h = 0; h < static_cast<int>(heads.size()); ++h)
    if (!is_masked(layer, h)) kept.push_back(h);
  if (kept.empty())
    for (int h = 0; h < static_cast<int>(heads.size()); ++h) kept.push_back(h);
  return kept;
}

std::vector<float> AttentionMatrices::head_average(int layer) const {
  const std::vector<int> kept = averaged_heads(layer);
  std::vector<float> average(static_cast<size_t>(rows) * cols, 0.0f);
  for (int h : kept)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        average[static_cast<size_t>(i) * cols + j] += at(layer, h, i, j) / kept.size();
  return average;
}

std::vector<std::string> dump_layer_labels(const json& selection_layers, int count) {
  std::vector<std::string> labels;
  auto positional = [&] {
    labels.clear();
    for (int l = 0; l < count; ++l) labels.push_back(std::to_string(l));
    return labels;
  };
  if (!selection_layers.is_array()) return positional();
  std::vector<int> chosen;
  for (const json& x : selection_layers) {
    if (!x.is_number_integer()) return positional();
    chosen.push_back(x.get<int>());
  }
  // The writer keeps every negative layer (it refuses those that do not fit both stacks) and
  // the non-negative ones below the stack's depth: find a depth that leaves `count` layers.
  // Only the depths 0 and layer + 1 change what is kept: try those, shallowest first (trying
  // every depth up to a huge layer number would hang; layer + 1 may overflow an int).
  std::vector<long long> sorted(chosen.begin(), chosen.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<long long> depths{0};
  for (long long layer : sorted)
    if (layer >= 0) depths.push_back(layer + 1);
  for (long long depth : depths) {
    auto below = std::lower_bound(sorted.begin(), sorted.end(), depth) - sorted.begin();
    if (below != count) continue;
    std::vector<std::string> kept;
    for (int layer : chosen)
      if (layer < depth) kept.push_back(std::to_string(layer));
    return kept;
  }
  return positional();
}

}  // namespace minimt
