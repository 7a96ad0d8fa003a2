// The attention dump's extras (dump_schema.h): a type's scores, vectors and norms beside its
// weights, and the decoder's logit lens; attention_dump.cpp calls these while it streams.
#pragma once

#include <ostream>
#include <vector>

#include "minimt/app/record/attention_dump.h"
#include "minimt/app/record/dump_schema.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/tokenizer.h"

namespace minimt {

// The layers, heads and sizes of one type of one sentence as the dump writes them.
struct DumpedType {
  const dump_schema::AttentionType& type;
  const std::vector<int>& layers;  // model layer numbers, in the order written
  const std::vector<int>& heads;
  int rows = 0, cols = 0;  // queries, keys
};

// Writes ",\n KEY:VALUE" for each extra of `dumped.type` the selection asks for, from `record`
// (an empty record for a blank sentence, whose layers are then none).
void write_type_extras(std::ostream& out, const DumpSelection& selection, const DumpedType& dumped,
                       const AttentionRecord& record);

// Writes ",\n decoder_layer_predictions:[layer][T][K]" for the given decoder layers.
void write_layer_predictions(std::ostream& out, const Translation& translation,
                             const Tokenizer& target, const std::vector<int>& layers);

}  // namespace minimt
