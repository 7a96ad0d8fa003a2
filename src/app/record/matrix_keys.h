// The rows of dump_keys.cpp's table that belong to each attention type: its weights
// [layer][head][query][key] and the extras beside them (scores, vectors, norms), recorded from
// the translation's AttentionRecord, written from and read into AttentionMatrices.
#pragma once

#include "app/record/dump_keys.h"

namespace minimt::dump_keys {

void record_weights(const Recording& r, const Slot& slot, DumpSentence& s);
void record_scores(const Recording& r, const Slot& slot, DumpSentence& s);
void record_queries(const Recording& r, const Slot& slot, DumpSentence& s);
void record_keys(const Recording& r, const Slot& slot, DumpSentence& s);
void record_values(const Recording& r, const Slot& slot, DumpSentence& s);
void record_weighted_norms(const Recording& r, const Slot& slot, DumpSentence& s);
void record_head_norms(const Recording& r, const Slot& slot, DumpSentence& s);

// The weights or an extra, as the row's shape says: [layer][head][rows][cols], or
// [layer][head][rows] when its cols are kNone.
void write_matrices(std::ostream& out, const Slot& slot, const DumpSentence& s);

// The type's weights, checked against the tokens and the softmax (matrix_reader.cpp).
void read_weights(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);
// An extra, checked against the type's weights and the row's shape and cells.
void read_extra(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);
// A type's queries and keys are as wide (d_k); value is unused.
void check_widths(const nlohmann::json* value, const Reading& r, const Slot& slot, DumpSentence& s);

}  // namespace minimt::dump_keys
