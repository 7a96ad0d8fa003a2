// The parts of an attention dump that say what each of its sentences holds, read once for all
// of them (dump_reader.cpp reads the sentences): "selection" (the types, heads and layers kept,
// and the layers' numbers) and "masked_heads".
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "minimt/app/record/dump_reader.h"

namespace minimt::dump_read {

struct Selection {
  std::vector<int> heads;
  bool heads_given = false;
  nlohmann::json layers;
  std::vector<int> encoder_layers, decoder_layers;     // the numbers of the layers kept, if given
  int encoder_depth = 0, decoder_depth = 0;            // the model's layers, if given
  std::set<std::tuple<std::string, int, int>> masked;  // (type, layer number, head number)
};

// The dump's selection and masked heads; also sets dump.types, dump.kept and dump.masked_heads.
// Throws Error, prefixed with `name`, for a malformed one.
Selection read_selection(const nlohmann::json& document, const std::string& name,
                         AttentionDump& dump);

// What reading `header` (a dump's document, as DumpRecorder makes it) back would give.
Selection kept_selection(const AttentionDump& header);

// The labels of a type's `count` layers: the numbers the writer resolved when it wrote them,
// else what dump_layer_labels makes of "layers".
std::vector<std::string> layer_labels(const dump_schema::AttentionType& type,
                                      const Selection& selection, int count);

// The model's layers in a type's stack: `count` when the dump holds every layer, the depth the
// selection gives, else 0 (not known).
int model_layers(const dump_schema::AttentionType& type, const Selection& selection, int count);

// Sets m.masked from the selection's masked heads, by m's layer labels and head numbers.
void mark_masked(AttentionMatrices& m, const Selection& selection);

// A list of strings; none if `value` is null. Throws Error naming `where` for anything else.
std::vector<std::string> string_list(const nlohmann::json& value, const std::string& where);

// object[key] as a string ("" if absent or null); throws Error if it is something else.
std::string string_field(const nlohmann::json& object, const char* key, const std::string& where);

}  // namespace minimt::dump_read
