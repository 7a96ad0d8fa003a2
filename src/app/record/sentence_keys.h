// The rows of dump_keys.cpp's table that belong to the sentence as a whole: its tokens, the
// output's probabilities, the rollouts and the logit lens; each records, writes and reads its
// key (the slot's, where one function serves several keys).
#pragma once

#include "app/record/dump_keys.h"

namespace minimt::dump_keys {

// source_tokens, decoder_input_tokens, output_tokens (its read checks it against the inputs).
void record_tokens(const Recording& r, const Slot& slot, DumpSentence& s);
void write_tokens(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_tokens(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);

void record_given_tokens(const Recording& r, const Slot& slot, DumpSentence& s);
void write_given_tokens(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_given_tokens(const nlohmann::json* value, const Reading& r, const Slot& slot,
                       DumpSentence& s);

void record_log_probs(const Recording& r, const Slot& slot, DumpSentence& s);
void write_log_probs(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_log_probs(const nlohmann::json* value, const Reading& r, const Slot& slot,
                    DumpSentence& s);

void record_alternatives(const Recording& r, const Slot& slot, DumpSentence& s);
void write_alternatives(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_alternatives(const nlohmann::json* value, const Reading& r, const Slot& slot,
                       DumpSentence& s);

// encoder_rollout and cross_rollout: both recorded with the first (one computation).
void record_rollouts(const Recording& r, const Slot& slot, DumpSentence& s);
void write_rollout(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_rollout(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);

// decoder_layer_predictions (--logit-lens).
void record_lens(const Recording& r, const Slot& slot, DumpSentence& s);
void write_lens(std::ostream& out, const Slot& slot, const DumpSentence& s);
void read_lens(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);

// A text as the dump's JSON gives it back: invalid UTF-8 replaced as json_string replaces it.
std::string json_text(const std::string& text);
// value as a probability or its logarithm: a finite number in range; Error naming `where`.
float probability_number(const nlohmann::json& value, bool logarithm, const std::string& where);
// "[0][1][2]"
std::string index_text(std::initializer_list<size_t> at);

}  // namespace minimt::dump_keys
