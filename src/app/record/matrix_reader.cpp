// Reading each type's weights and extras (matrix_keys.h), each checked against what the format
// promises of it.
#include <cmath>
#include <cstdio>

#include "app/record/matrix_keys.h"
#include "app/record/sentence_keys.h"
#include "minimt/base/error.h"

namespace minimt::dump_keys {
namespace {

using nlohmann::json;
namespace schema = dump_schema;

// How far a dumped weight may stray from what softmax can give (float32 rounding, with room).
constexpr double kWeightTolerance = 1e-5;
// How far a row's sum may stray from 1: its weights' rounding, added up.
constexpr double kRowSumTolerance = 1e-3;

// A number for a message: a weight as the dump wrote it (9 digits: every float), a sum to 6.
std::string number_text(double x, int digits = 9) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// A weight from the dump, checked before it is narrowed to a float (1e308 would be inf): softmax
// gives numbers in [0, 1].
float weight_value(const json& x, const std::string& at) {
  if (!x.is_number()) throw Error(at + " holds something not a number");
  const double w = x.get<double>();
  if (!(w >= -kWeightTolerance && w <= 1 + kWeightTolerance))
    throw Error(at + " is " + number_text(w) + ", not an attention weight (0 to 1)");
  return static_cast<float>(w);
}

// The rows of one head are what softmax gives (each weight in [0, 1] is checked as it is read):
// each row sums to 1, or is all 0 for a head --ablate-heads switched off; under the causal mask (a
// decoder position cannot see a later one) exactly 0. Throws Error naming the weight or row.
void check_head_weights(const AttentionMatrices& m, int layer, int head, bool causal,
                        const std::string& at_head) {
  for (int i = 0; i < m.rows; ++i) {
    double sum = 0;
    for (int j = 0; j < m.cols; ++j) {
      const float w = m.at(layer, head, i, j);
      if (causal && j > i && w != 0)
        throw Error(at_head + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                    number_text(w) + " above the causal diagonal, where a " +
                    "decoder position reads no later one: it must be 0");
      sum += w;
    }
    const bool switched_off = m.is_masked(layer, head) && sum == 0;
    if (!switched_off && std::fabs(sum - 1) > kRowSumTolerance)
      throw Error(
          at_head + "[" + std::to_string(i) + "] sums to " + number_text(sum, 6) +
          ", not 1: attention weights are a softmax" +
          (m.is_masked(layer, head) ? " (or all 0 for a head --ablate-heads switched off)" : ""));
  }
}

const char* axis_token(schema::Axis axis) {
  return axis == schema::Axis::kSource ? "source token" : "decoder input token";
}

// [layers][heads][rows][cols] numbers into `m`; checks every dimension.
void read_matrices(const json& value, const std::string& where, AttentionMatrices& m,
                   const std::string& rows_are, const std::string& cols_are) {
  if (!value.is_array()) throw Error(where + " is not a list of layers");
  const size_t heads = m.heads.size();
  for (size_t l = 0; l < value.size(); ++l) {
    const json& layer = value[l];
    std::string at = where + "[" + std::to_string(l) + "]";
    if (!layer.is_array() || layer.size() != heads)
      throw Error(at + " should be a list of " + std::to_string(heads) +
                  " heads (the dump's selection.heads)");
    for (size_t h = 0; h < heads; ++h) {
      const json& matrix = layer[h];
      std::string at_head = at + "[" + std::to_string(h) + "]";
      if (!matrix.is_array() || matrix.size() != static_cast<size_t>(m.rows))
        throw Error(at_head + " should have " + std::to_string(m.rows) + " rows, one per " +
                    rows_are);
      for (int i = 0; i < m.rows; ++i) {
        const json& row = matrix[i];
        if (!row.is_array() || row.size() != static_cast<size_t>(m.cols))
          throw Error(at_head + "[" + std::to_string(i) + "] should have " +
                      std::to_string(m.cols) + " weights, one per " + cols_are);
        for (size_t j = 0; j < row.size(); ++j)
          m.values.push_back(weight_value(
              row[j], at_head + "[" + std::to_string(i) + "][" + std::to_string(j) + "]"));
      }
    }
  }
}

// One number of an extra, as its cells promise.
float cell(const json& x, Cells cells, bool causal, size_t i, size_t j, const std::string& at) {
  const bool hidden = cells == Cells::kScore && causal && j > i;
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

}  // namespace

void read_weights(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value || value->is_null()) return;
  const schema::AttentionType& type = *slot.type;
  const std::string& where = r.where;
  const dump_read::Selection& selection = r.selection;
  AttentionMatrices m;
  m.type = type.type;
  m.rows = static_cast<int>(s.tokens(type.rows).size());
  m.cols = static_cast<int>(s.tokens(type.cols).size());
  if (!value->is_array()) throw Error(where + ": " + type.key + " is not a list of layers");
  const int layers = static_cast<int>(value->size());
  if (selection.heads_given) {
    m.heads = selection.heads;
  } else {  // no selection: count the heads of the first layer
    int count = layers > 0 && (*value)[0].is_array() ? static_cast<int>((*value)[0].size()) : 0;
    for (int h = 0; h < count; ++h) m.heads.push_back(h);
  }
  if (m.rows == 0 || m.cols == 0) {
    // A blank sentence: the writer leaves no layers. Anything else is malformed.
    for (const json& layer : *value)
      for (const json& matrix : layer)
        if (!matrix.empty())
          throw Error(where + ": " + type.key + " holds weights but the sentence has no " +
                      (m.rows == 0 ? "queries" : "keys"));
    m.empty_layers = layers;
    s.attention.push_back(std::move(m));
    return;
  }
  m.layer_labels = dump_read::layer_labels(type, selection, layers);
  m.model_layers = dump_read::model_layers(type, selection, layers);
  const std::string at = where + ": " + type.key;
  read_matrices(*value, at, m, axis_token(type.rows), axis_token(type.cols));
  dump_read::mark_masked(m, selection);
  for (int l = 0; l < m.layers(); ++l)
    for (size_t h = 0; h < m.heads.size(); ++h)
      check_head_weights(m, l, static_cast<int>(h), type.causal,
                         at + "[" + std::to_string(l) + "][" + std::to_string(h) + "]");
  s.attention.push_back(std::move(m));
}

void read_extra(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value || value->is_null()) return;
  const schema::AttentionType& type = *slot.type;
  const AttentionMatrices* weights = s.find(type.type);
  const int layers = weights && weights->layers() > 0 ? weights->layers() : -1;  // -1: any
  const std::string at = r.where + ": " + slot.key;
  if (!value->is_array()) throw Error(at + " is not a list of layers");
  if (layers >= 0 && value->size() != static_cast<size_t>(layers))
    throw Error(at + " has " + std::to_string(value->size()) + " layers, its type's weights " +
                std::to_string(layers));
  AttentionMatrices m;
  m.type = slot.key;
  m.heads = weights ? weights->heads : r.selection.heads;
  if (!weights && !r.selection.heads_given && !value->empty() && (*value)[0].is_array())
    for (size_t h = 0; h < (*value)[0].size(); ++h) m.heads.push_back(static_cast<int>(h));
  auto tokens_along = [&](Along along) {
    return static_cast<int>(s.tokens(along == Along::kQueries ? type.rows : type.cols).size());
  };
  const Along along = slot.row.rows;
  const char* rows_are = axis_token(along == Along::kQueries ? type.rows : type.cols);
  const int count = tokens_along(along);
  // The numbers in each row; -1: learned from the first; 0: the rows are numbers.
  const int size = slot.row.cols == Along::kNone    ? 0
                   : slot.row.cols == Along::kWidth ? -1
                                                    : tokens_along(slot.row.cols);
  m.rows = count;
  m.cols = size == 0 ? 1 : size;
  const size_t heads = m.heads.size();
  for (size_t l = 0; l < value->size(); ++l) {
    const json& layer = (*value)[l];
    if (!layer.is_array() || layer.size() != heads)
      throw Error(at + index_text({l}) + " should be a list of " + std::to_string(heads) +
                  " heads");
    for (size_t h = 0; h < heads; ++h) {
      const json& rows = layer[h];
      if (!rows.is_array() || rows.size() != static_cast<size_t>(count))
        throw Error(at + index_text({l, h}) + " should have " + std::to_string(count) +
                    " entries, one per " + rows_are);
      for (size_t i = 0; i < rows.size(); ++i) {
        if (size == 0) {
          m.values.push_back(
              cell(rows[i], slot.row.cells, type.causal, i, 0, at + index_text({l, h, i})));
          continue;
        }
        const json& row = rows[i];
        if (m.cols < 0 && row.is_array() && !row.empty()) m.cols = static_cast<int>(row.size());
        if (!row.is_array() || row.size() != static_cast<size_t>(m.cols))
          throw Error(at + index_text({l, h, i}) + " should be a list of " +
                      (m.cols < 0 ? std::string("numbers") : std::to_string(m.cols) + " numbers") +
                      (size < 0 ? " (the head's width, the same in every row)" : ""));
        for (size_t j = 0; j < row.size(); ++j)
          m.values.push_back(
              cell(row[j], slot.row.cells, type.causal, i, j, at + index_text({l, h, i, j})));
      }
    }
  }
  // The layers are the type's own (checked against its weights above when they are present).
  const int read = static_cast<int>(value->size());
  m.layer_labels = dump_read::layer_labels(type, r.selection, read);
  m.model_layers = dump_read::model_layers(type, r.selection, read);
  s.extras.push_back(std::move(m));
}

void check_widths(const json*, const Reading& r, const Slot& slot, DumpSentence& s) {
  const schema::AttentionType& type = *slot.type;
  const AttentionMatrices* queries = s.find_extra(schema::extra_key(type, schema::kQueriesSuffix));
  const AttentionMatrices* keys = s.find_extra(schema::extra_key(type, schema::kKeysSuffix));
  if (queries && keys && queries->rows > 0 && keys->rows > 0 && queries->cols != keys->cols)
    throw Error(r.where + ": " + keys->type + " rows hold " + std::to_string(keys->cols) +
                " numbers, " + queries->type + " rows " + std::to_string(queries->cols) +
                ": a query and a key have the same width d_k");
}

}  // namespace minimt::dump_keys
