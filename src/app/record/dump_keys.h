// The one table of an attention dump's sentence keys (dump_keys.cpp): for each key, its name,
// the selection's flag that asks for it, the shape and promise of its numbers, and the three
// things done with it: recorded from a translation into a DumpSentence (dump_recorder.h),
// written from the DumpSentence as JSON (attention_dump.h), read from JSON into a DumpSentence
// and checked (dump_reader.h). A new key is one row here, its field in dump.h, its computation
// and its drawing. Private to app/record.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app/record/dump_selection.h"
#include "minimt/app/record/dump.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

namespace minimt::dump_keys {

struct DumpKey;

// One key of one sentence: a row, and for a row of each type, the type.
struct Slot {
  const DumpKey& row;
  const dump_schema::AttentionType* type;  // nullptr for a key of the sentence
  std::string key;                         // as the sentence holds it: "cross_scores"
};

// A sentence being recorded.
struct Recording {
  const Translation& translation;
  const Model& model;
  const DumpSelection& selection;
  const dump_read::Selection& kept;  // what the dump's "selection" says (heads, layers, masks)
  const AttentionRecord& record;     // an empty one when the translation has none
  // The model layer numbers written of each stack (none without a record).
  std::vector<int> encoder_layers, decoder_layers;
  const std::vector<int>& layers(const dump_schema::AttentionType& type) const {
    return std::string(type.type) == "encoder" ? encoder_layers : decoder_layers;
  }
};

// A sentence being read: `where` names it in messages ("d.json: sentence 2").
struct Reading {
  const dump_read::Selection& selection;
  const std::string& where;
};

enum class Scope {
  kSentence,  // one key per sentence
  kEachType,  // one key per attention type kept: its key (name "") or its prefix and the name
};

// Of a type's matrices: what a list runs along. kWidth: a head's width (d_k, learned from the
// first row); kNone: no list, one number (head norms).
enum class Along { kQueries, kKeys, kWidth, kNone };

// What a matrix promises of its numbers.
enum class Cells {
  kWeight,       // softmax weights: in [0, 1], each row summing to 1 (or all 0 if masked)
  kFinite,       // finite numbers
  kScore,        // finite, and null exactly where the type's causal mask hides the key
  kNonNegative,  // finite and at least 0
};

struct DumpKey {
  const char* name;
  Scope scope;
  bool (*asked)(const DumpSelection&);  // whether the selection asks for it
  bool after_weights;                   // read after every type's weights, checked against them
  // kEachType: the shape [layer][head][rows][cols] and its numbers' promise.
  Along rows, cols;
  Cells cells;
  void (*record)(const Recording&, const Slot&, DumpSentence&);
  void (*write)(std::ostream&, const Slot&, const DumpSentence&);  // nothing if s has none
  // value: the sentence's entry under the key (perhaps null), nullptr when it has none.
  void (*read)(const nlohmann::json* value, const Reading&, const Slot&, DumpSentence&);
};

// The keys a sentence asks for, recorded into `s` (its source, translation and error are set).
void record_keys(const Recording& recording, DumpSentence& s);
// ",KEY:VALUE" for each key `s` holds, in the table's order.
void write_keys(std::ostream& out, const DumpSentence& s);
// Each key of `entry` into `s`: every type's weights first, then what is checked against them.
void read_keys(const nlohmann::json& entry, const Reading& reading, DumpSentence& s);

// ",KEY:" (new_line: ",\n KEY:"): a key's start; the schema's keys need no escaping.
void open_key(std::ostream& out, const Slot& slot, bool new_line);

}  // namespace minimt::dump_keys
