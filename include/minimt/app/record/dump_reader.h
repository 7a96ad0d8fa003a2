// Reads attention dumps (attention_dump.h writes them; dump_schema.h names their parts) into the
// dump in memory (dump.h), as the recorder (dump_recorder.h) makes it, for the views.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "minimt/app/record/dump.h"

namespace minimt {

// Checks and converts a parsed dump; `name` prefixes error messages. Throws Error when the
// document is not a minimt-attention dump of version 1 or a matrix does not match its tokens,
// or an extra breaks what dump_schema.h promises of it (its shape, null exactly where the causal
// mask is, finite numbers, norms >= 0, probabilities in [0, 1]), naming the key and index.
// Copes with dumps holding only some types, layers or heads ("selection"), with failed
// sentences ("error") and with blank ones (empty token lists).
AttentionDump parse_attention_dump(const nlohmann::json& document, const std::string& name);
AttentionDump read_attention_dump(std::istream& in, const std::string& name);

// Labels of the layers a dump holds, from its "selection.layers" (null: all) and the number of
// matrices present. Non-negative selections that exceed a shallower stack are left out by the
// writer, which this undoes; negative ones stay as given ("-1": the last layer).
std::vector<std::string> dump_layer_labels(const nlohmann::json& selection_layers, int count);

}  // namespace minimt
