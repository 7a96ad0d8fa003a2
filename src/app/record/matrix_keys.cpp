// Recording and writing each type's weights and extras (matrix_keys.h).
#include "app/record/matrix_keys.h"

#include <cstdint>
#include <limits>

#include "app/record/json_lists.h"
#include "minimt/base/json_writer.h"

namespace minimt::dump_keys {
namespace {

namespace schema = dump_schema;

// The extras a record holds for one type (the engine knows the types by kind, not by name).
const InsideRecord& inside_of(const AttentionRecord& record, const schema::AttentionType& type) {
  const std::string name = type.type;
  return name == "encoder"   ? record.encoder_inside
         : name == "decoder" ? record.decoder_inside
                             : record.cross_inside;
}

// The weight that query i gives key j in one layer and head of the type.
float weight_of(const AttentionRecord& record, const schema::AttentionType& type, int l, int h,
                int i, int j) {
  const std::string name = type.type;
  return name == "encoder"   ? record.encoder(l, h, i, j)
         : name == "decoder" ? record.decoder_self(l, h, i, j)
                             : record.cross(l, h, i, j);
}

// The tokens a shape's axis runs along, or -1 for kWidth, 0 for kNone.
int extent(const DumpSentence& s, const schema::AttentionType& type, Along along) {
  switch (along) {
    case Along::kQueries:
      return static_cast<int>(s.tokens(type.rows).size());
    case Along::kKeys:
      return static_cast<int>(s.tokens(type.cols).size());
    case Along::kWidth:
      return -1;
    case Along::kNone:
      break;
  }
  return 0;
}

// An extra of slot's type and shape: value(l, h, i, e) for the model layers written, the heads
// kept, `rows` entries and `width` numbers in each (1 for kNone), as the reader makes it. When
// the record holds fewer rows than that (`recorded`: cross-attention's keys and values are
// projected at the first decoder step, and --max-length 0 takes none), no layer: the extra is
// written as [], as the weights of a type with no rows are.
template <typename Value>
void record_extra(const Recording& r, const Slot& slot, DumpSentence& s, int width, Value value,
                  size_t recorded = SIZE_MAX) {
  const schema::AttentionType& type = *slot.type;
  static const std::vector<int> no_layers;
  const bool unrecorded = recorded < static_cast<size_t>(extent(s, type, slot.row.rows));
  const std::vector<int>& layers = unrecorded ? no_layers : r.layers(type);
  AttentionMatrices m;
  m.type = slot.key;
  m.heads = r.kept.heads;
  m.rows = extent(s, type, slot.row.rows);
  const int cols = slot.row.cols == Along::kNone ? 1 : extent(s, type, slot.row.cols);
  // A width is learned from the first row: none without one.
  const bool any_row = !layers.empty() && !m.heads.empty() && m.rows > 0;
  m.cols = cols >= 0 ? cols : any_row ? width : -1;
  m.layer_labels = dump_read::layer_labels(type, r.kept, static_cast<int>(layers.size()));
  m.model_layers = dump_read::model_layers(type, r.kept, static_cast<int>(layers.size()));
  const int size = cols >= 0 ? cols : width;
  m.values.reserve(layers.size() * m.heads.size() * m.rows * size);
  for (int l : layers)
    for (int h : m.heads)
      for (int i = 0; i < m.rows; ++i)
        for (int e = 0; e < size; ++e) m.values.push_back(value(l, h, i, e));
  s.extras.push_back(std::move(m));
}

// A query's, a key's or a value's numbers in one head: slice(rows(k)) of the record.
template <typename Rows>
void record_vectors(const Recording& r, const Slot& slot, DumpSentence& s, Rows rows) {
  const InsideRecord& inside = inside_of(r.record, *slot.type);
  const size_t recorded =
      slot.row.rows == Along::kKeys ? inside.keys.size() : inside.queries.size();
  record_extra(
      r, slot, s, inside.head_dim,
      [&](int l, int h, int k, int e) { return inside.slice(rows(inside, k), l, h, e); }, recorded);
}

}  // namespace

void record_weights(const Recording& r, const Slot& slot, DumpSentence& s) {
  const schema::AttentionType& type = *slot.type;
  const std::vector<int>& layers = r.layers(type);
  AttentionMatrices m;
  m.type = type.type;
  m.rows = static_cast<int>(s.tokens(type.rows).size());
  m.cols = static_cast<int>(s.tokens(type.cols).size());
  m.heads = r.kept.heads;
  if (m.rows == 0 || m.cols == 0) {
    m.empty_layers = static_cast<int>(layers.size());
  } else {
    m.layer_labels = dump_read::layer_labels(type, r.kept, static_cast<int>(layers.size()));
    m.model_layers = dump_read::model_layers(type, r.kept, static_cast<int>(layers.size()));
    m.values.reserve(layers.size() * m.heads.size() * m.rows * m.cols);
    for (int l : layers)
      for (int h : m.heads)
        for (int i = 0; i < m.rows; ++i)
          for (int j = 0; j < m.cols; ++j)
            m.values.push_back(weight_of(r.record, type, l, h, i, j));
    dump_read::mark_masked(m, r.kept);
  }
  s.attention.push_back(std::move(m));
}

void record_scores(const Recording& r, const Slot& slot, DumpSentence& s) {
  const InsideRecord& inside = inside_of(r.record, *slot.type);
  // NaN (null in the dump) where the causal mask is: the softmax never read those.
  record_extra(r, slot, s, 0, [&](int l, int h, int i, int j) {
    return j < inside.queries[i].visible ? inside.score(l, h, i, j)
                                         : std::numeric_limits<float>::quiet_NaN();
  });
}

void record_queries(const Recording& r, const Slot& slot, DumpSentence& s) {
  record_vectors(r, slot, s, [](const InsideRecord& inside, int i) -> const std::vector<float>& {
    return inside.queries[i].vector;
  });
}

void record_keys(const Recording& r, const Slot& slot, DumpSentence& s) {
  record_vectors(r, slot, s, [](const InsideRecord& inside, int j) -> const std::vector<float>& {
    return inside.keys[j].key;
  });
}

void record_values(const Recording& r, const Slot& slot, DumpSentence& s) {
  record_vectors(r, slot, s, [](const InsideRecord& inside, int j) -> const std::vector<float>& {
    return inside.keys[j].value;
  });
}

void record_weighted_norms(const Recording& r, const Slot& slot, DumpSentence& s) {
  const InsideRecord& inside = inside_of(r.record, *slot.type);
  // ||a_ij v_j W_O^h|| = a_ij ||v_j W_O^h||: a weight is a number >= 0.
  record_extra(r, slot, s, 0, [&](int l, int h, int i, int j) {
    return weight_of(r.record, *slot.type, l, h, i, j) * inside.value_norm(l, h, j);
  });
}

void record_head_norms(const Recording& r, const Slot& slot, DumpSentence& s) {
  const InsideRecord& inside = inside_of(r.record, *slot.type);
  record_extra(r, slot, s, 0, [&](int l, int h, int i, int) { return inside.head_norm(l, h, i); });
}

void write_matrices(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  const bool weights = slot.key == slot.type->key;
  const AttentionMatrices* m = weights ? s.find(slot.type->type) : s.find_extra(slot.key);
  if (!m) return;
  open_key(out, slot, true);
  if (m->layers() == 0 && m->empty_layers > 0) {
    write_list(out, m->empty_layers,
               [&](size_t) { write_list(out, m->heads.size(), [&](size_t) { out << "[]"; }); });
    return;
  }
  const float* value = m->values.data();
  const bool numbers = slot.row.cols == Along::kNone;  // one number per row, not a list
  write_list(out, m->layers(), [&](size_t) {
    write_list(out, m->heads.size(), [&](size_t) {
      write_list(out, m->rows, [&](size_t) {
        if (numbers)
          write_json_float(out, *value++);
        else
          write_list(out, m->cols, [&](size_t) { write_json_float(out, *value++); });
      });
    });
  });
}

}  // namespace minimt::dump_keys
