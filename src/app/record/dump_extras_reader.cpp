#include "app/record/dump_extras_reader.h"

#include <cmath>
#include <initializer_list>
#include <limits>

#include "minimt/base/error.h"

namespace minimt {
namespace {

using nlohmann::json;
namespace schema = dump_schema;

// What an extra promises of each of its numbers.
enum class Cells { kFinite, kNonNegative, kCausal };  // kCausal: null exactly above the diagonal

// "[0][1][2]"
std::string index(std::initializer_list<size_t> at) {
  std::string text;
  for (size_t x : at) text += "[" + std::to_string(x) + "]";
  return text;
}

// The shape one extra must have: layers (< 0: any), heads, `count` rows and `size` numbers in
// each (< 0: learned from the first row; 0: none, the rows are numbers: head norms).
struct ExtraShape {
  int layers = -1;
  std::vector<int> heads;
  bool heads_known = true;
  int count = 0, size = 0;
  const char* rows_are = "";  // "source token", ...
};

float cell(const json& x, Cells cells, size_t i, size_t j, const std::string& at) {
  const bool hidden = cells == Cells::kCausal && j > i;
  if (x.is_null()) {
    if (hidden) return std::numeric_limits<float>::quiet_NaN();
    throw Error(at +
                " is null, but only the scores the causal mask hides (a key after the "
                "query, in decoder self-attention) may be");
  }
  if (hidden)
    throw Error(at + " should be null: the causal mask hides key " + std::to_string(j) +
                " from query " + std::to_string(i) + ", the softmax never read a score there");
  if (!x.is_number()) throw Error(at + " is not a number");
  const double value = x.get<double>();
  if (!std::isfinite(value)) throw Error(at + " is not a finite number");
  if (cells == Cells::kNonNegative && value < 0)
    throw Error(at + " is " + x.dump() + ", but a norm is at least 0");
  return static_cast<float>(value);
}

AttentionMatrices read_extra(const json& value, const std::string& key, ExtraShape shape,
                             Cells cells, const schema::AttentionType& type,
                             const dump_read::Selection& selection, const std::string& where) {
  const std::string at = where + ": " + key;
  if (!value.is_array()) throw Error(at + " is not a list of layers");
  if (shape.layers >= 0 && value.size() != static_cast<size_t>(shape.layers))
    throw Error(at + " has " + std::to_string(value.size()) + " layers, its type's weights " +
                std::to_string(shape.layers));
  if (!shape.heads_known && !value.empty() && value[0].is_array())
    for (size_t h = 0; h < value[0].size(); ++h) shape.heads.push_back(static_cast<int>(h));
  AttentionMatrices m;
  m.type = key;
  m.heads = shape.heads;
  m.rows = shape.count;
  m.cols = shape.size == 0 ? 1 : shape.size;
  const size_t heads = shape.heads.size();
  for (size_t l = 0; l < value.size(); ++l) {
    if (!value[l].is_array() || value[l].size() != heads)
      throw Error(at + index({l}) + " should be a list of " + std::to_string(heads) + " heads");
    for (size_t h = 0; h < heads; ++h) {
      const json& rows = value[l][h];
      if (!rows.is_array() || rows.size() != static_cast<size_t>(shape.count))
        throw Error(at + index({l, h}) + " should have " + std::to_string(shape.count) +
                    " entries, one per " + shape.rows_are);
      for (size_t i = 0; i < rows.size(); ++i) {
        if (shape.size == 0) {
          m.values.push_back(cell(rows[i], cells, i, 0, at + index({l, h, i})));
          continue;
        }
        const json& row = rows[i];
        if (m.cols < 0 && row.is_array() && !row.empty()) m.cols = static_cast<int>(row.size());
        if (!row.is_array() || row.size() != static_cast<size_t>(m.cols))
          throw Error(at + index({l, h, i}) + " should be a list of " +
                      (m.cols < 0 ? std::string("numbers") : std::to_string(m.cols) + " numbers") +
                      (shape.size < 0 ? " (the head's width, the same in every row)" : ""));
        for (size_t j = 0; j < row.size(); ++j)
          m.values.push_back(cell(row[j], cells, i, j, at + index({l, h, i, j})));
      }
    }
  }
  // The layers are the type's own (checked against its weights above when they are present).
  m.layer_labels = dump_read::layer_labels(type, selection, static_cast<int>(value.size()));
  m.model_layers = dump_read::model_layers(type, selection, static_cast<int>(value.size()));
  return m;
}

const char* axis_name(schema::Axis axis) {
  return axis == schema::Axis::kSource ? "source token" : "decoder input token";
}

// The extras of one type present in `entry`.
void read_type_extras(const json& entry, const schema::AttentionType& type,
                      const dump_read::Selection& selection, DumpSentence& s,
                      const std::string& where) {
  const AttentionMatrices* weights = s.find(type.type);
  ExtraShape base;
  base.layers = weights && weights->layers() > 0 ? weights->layers() : -1;
  base.heads = weights ? weights->heads : selection.heads;
  base.heads_known = weights || selection.heads_given;
  const int rows = static_cast<int>(s.tokens(type.rows).size());
  const int cols = static_cast<int>(s.tokens(type.cols).size());
  auto read = [&](const char* suffix, int count, int size, schema::Axis along, Cells cells) {
    const std::string key = schema::extra_key(type, suffix);
    auto it = entry.find(key);
    if (it == entry.end() || it->is_null()) return;
    ExtraShape shape = base;
    shape.count = count;
    shape.size = size;
    shape.rows_are = axis_name(along);
    s.extras.push_back(read_extra(*it, key, shape, cells, type, selection, where));
  };
  read(schema::kScoresSuffix, rows, cols, type.rows, type.causal ? Cells::kCausal : Cells::kFinite);
  read(schema::kQueriesSuffix, rows, -1, type.rows, Cells::kFinite);
  read(schema::kKeysSuffix, cols, -1, type.cols, Cells::kFinite);
  read(schema::kValuesSuffix, cols, -1, type.cols, Cells::kFinite);
  read(schema::kWeightedNormsSuffix, rows, cols, type.rows, Cells::kNonNegative);
  read(schema::kHeadNormsSuffix, rows, 0, type.rows, Cells::kNonNegative);
  const AttentionMatrices* queries = s.find_extra(schema::extra_key(type, schema::kQueriesSuffix));
  const AttentionMatrices* keys = s.find_extra(schema::extra_key(type, schema::kKeysSuffix));
  if (queries && keys && queries->rows > 0 && keys->rows > 0 && queries->cols != keys->cols)
    throw Error(where + ": " + keys->type + " rows hold " + std::to_string(keys->cols) +
                " numbers, " + queries->type + " rows " + std::to_string(queries->cols) +
                ": a query and a key have the same width d_k");
}

// decoder_layer_predictions: [layer][T][{"token", "probability"}...].
void read_layer_predictions(const json& value, const dump_read::Selection& selection,
                            DumpSentence& s, const std::string& where) {
  const std::string at = where + ": " + schema::kDecoderLayerPredictions;
  if (!value.is_array()) throw Error(at + " is not a list of layers");
  for (const char* type : {"decoder", "cross"}) {
    const AttentionMatrices* weights = s.find(type);
    if (weights && weights->layers() > 0 && value.size() != static_cast<size_t>(weights->layers()))
      throw Error(at + " has " + std::to_string(value.size()) + " layers, the decoder's weights " +
                  std::to_string(weights->layers()));
  }
  const size_t steps = s.decoder_input_tokens.size();
  for (size_t l = 0; l < value.size(); ++l) {
    const json& layer = value[l];
    if (!layer.is_array() || layer.size() != steps)
      throw Error(at + index({l}) + " should have " + std::to_string(steps) +
                  " entries, one per decoder input token");
    s.layer_predictions.emplace_back();
    for (size_t t = 0; t < steps; ++t) {
      const json& list = layer[t];
      if (!list.is_array() || list.size() > 1000)
        throw Error(at + index({l, t}) + " is not a list of at most 1000 tokens");
      s.layer_predictions.back().emplace_back();
      for (size_t k = 0; k < list.size(); ++k) {
        const json& item = list[k];
        const std::string here = at + index({l, t, k});
        if (!item.is_object() || !item.contains(schema::kToken) ||
            !item[schema::kToken].is_string())
          throw Error(here + " is not a {\"token\", \"probability\"} object");
        const json p = item.value(schema::kProbability, json());
        if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() < 0 ||
            p.get<double>() > 1.001)
          throw Error(here + ": probability " + (p.is_number() ? p.dump() : "(not a number)") +
                      " is not in [0, 1]");
        s.layer_predictions.back().back().emplace_back(item[schema::kToken].get<std::string>(),
                                                       p.get<float>());
      }
    }
  }
  // The lens reads each decoder layer's output: the decoder's layer numbers.
  s.lens_layer_labels = dump_read::layer_labels(*schema::find_attention_type("decoder"), selection,
                                                static_cast<int>(value.size()));
}

}  // namespace

void read_sentence_extras(const json& entry, const dump_read::Selection& selection, DumpSentence& s,
                          const std::string& where) {
  for (const schema::AttentionType& type : schema::kAttentionTypes)
    read_type_extras(entry, type, selection, s, where);
  auto lens = entry.find(schema::kDecoderLayerPredictions);
  if (lens != entry.end() && !lens->is_null()) read_layer_predictions(*lens, selection, s, where);
}

}  // namespace minimt
