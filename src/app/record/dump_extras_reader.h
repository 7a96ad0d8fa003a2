// Reading the attention dump's extras (dump_schema.h: scores, vectors, norms, the logit lens)
// for dump_reader.cpp, each checked against what the format promises of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/record/dump_selection.h"
#include "minimt/app/record/dump_reader.h"

namespace minimt {

// Reads the extras present in sentence `entry` into s.extras and s.layer_predictions, after
// its tokens and weights; `where` names the sentence in messages. Throws Error naming the key
// and the index of the first entry that breaks the format.
void read_sentence_extras(const nlohmann::json& entry, const dump_read::Selection& selection,
                          DumpSentence& s, const std::string& where);

}  // namespace minimt
