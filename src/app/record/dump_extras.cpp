#include "app/record/dump_extras.h"

#include <string>

#include "app/record/json_lists.h"
#include "minimt/base/json_writer.h"

namespace minimt {
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

// ",\n KEY:" then [layer][head][count][size]: cell(l, h, k, e) writes one entry.
template <typename Cell>
void write_4d(std::ostream& out, const std::string& key, const DumpedType& d, int count, int size,
              Cell cell) {
  out << ",\n \"" << key << "\":";
  write_list(out, d.layers.size(), [&](size_t a) {
    write_list(out, d.heads.size(), [&](size_t b) {
      write_list(out, count, [&](size_t k) {
        write_list(out, size, [&](size_t e) {
          cell(d.layers[a], d.heads[b], static_cast<int>(k), static_cast<int>(e));
        });
      });
    });
  });
}

}  // namespace

void write_type_extras(std::ostream& out, const DumpSelection& selection, const DumpedType& d,
                       const AttentionRecord& record) {
  const InsideRecord& inside = inside_of(record, d.type);
  const int dk = inside.head_dim;
  if (selection.scores)  // null where the causal mask is: the softmax never read those
    write_4d(out, extra_key(d.type, schema::kScoresSuffix), d, d.rows, d.cols,
             [&](int l, int h, int i, int j) {
               if (j < inside.queries[i].visible)
                 write_json_float(out, inside.score(l, h, i, j));
               else
                 out << "null";
             });
  if (selection.vectors) {
    auto vector = [&](const char* suffix, int count, auto rows) {
      write_4d(out, extra_key(d.type, suffix), d, count, dk, [&](int l, int h, int k, int e) {
        write_json_float(out, inside.slice(rows(k), l, h, e));
      });
    };
    vector(schema::kQueriesSuffix, d.rows,
           [&](int i) -> const std::vector<float>& { return inside.queries[i].vector; });
    vector(schema::kKeysSuffix, d.cols,
           [&](int j) -> const std::vector<float>& { return inside.keys[j].key; });
    vector(schema::kValuesSuffix, d.cols,
           [&](int j) -> const std::vector<float>& { return inside.keys[j].value; });
  }
  if (selection.norms) {
    // ||a_ij v_j W_O^h|| = a_ij ||v_j W_O^h||: a weight is a number >= 0.
    write_4d(out, extra_key(d.type, schema::kWeightedNormsSuffix), d, d.rows, d.cols,
             [&](int l, int h, int i, int j) {
               write_json_float(out,
                                weight_of(record, d.type, l, h, i, j) * inside.value_norm(l, h, j));
             });
    out << ",\n \"" << extra_key(d.type, schema::kHeadNormsSuffix) << "\":";
    write_list(out, d.layers.size(), [&](size_t a) {
      write_list(out, d.heads.size(), [&](size_t b) {
        write_list(out, d.rows, [&](size_t i) {
          write_json_float(out, inside.head_norm(d.layers[a], d.heads[b], static_cast<int>(i)));
        });
      });
    });
  }
}

void write_layer_predictions(std::ostream& out, const Translation& t, const Tokenizer& target,
                             const std::vector<int>& layers) {
  out << ",\n \"" << schema::kDecoderLayerPredictions << "\":";
  write_list(out, layers.size(), [&](size_t a) {
    // No predictions: no output position (or a blank sentence, whose layers are none).
    const auto* positions = t.layer_predictions.empty() ? nullptr : &t.layer_predictions[layers[a]];
    write_list(out, positions ? positions->size() : 0, [&](size_t i) {
      write_list(out, (*positions)[i].size(), [&](size_t k) {
        const TokenProbability& p = (*positions)[i][k];
        out << "{\"" << schema::kToken << "\":" << json_string(target.piece(p.id)) << ",\""
            << schema::kProbability << "\":";
        write_json_float(out, p.probability);
        out << '}';
      });
    });
  });
}

}  // namespace minimt
