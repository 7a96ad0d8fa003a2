// Reading the attention dump's extras (dump_schema.h: scores, vectors, norms, the logit lens)
// for dump_reader.cpp, each checked against what the format promises of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "minimt/app/dump_reader.h"

namespace minimt {

// What a dump's "selection" says about every sentence: the heads and layers kept.
struct ReadSelection {
  std::vector<int> heads;
  bool heads_given = false;  // false: count the heads of the first layer
  nlohmann::json layers;     // selection.layers as written (null: every layer)
};

// Reads the extras present in sentence `entry` into s.extras and s.layer_predictions, after
// its tokens and weights; `where` names the sentence in messages. Throws Error naming the key
// and the index of the first entry that breaks the format.
void read_sentence_extras(const nlohmann::json& entry, const ReadSelection& selection,
                          DumpSentence& s, const std::string& where);

}  // namespace minimt
