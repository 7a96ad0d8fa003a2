// Two attention dumps of the same sentences compared, B - A (minimt view A B, minimt show A B):
// with and without --mask-heads, float32 and int8, two models. The dumps must hold the same
// sentences with the same tokens; the comparison covers the types, layers and heads both hold.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/record/dump_reader.h"

namespace minimt {

// A dump and what to call it in messages and titles (its file name).
struct NamedDump {
  const AttentionDump& dump;
  std::string name;
};

// Throws Error naming the first sentence and token where a and b differ (or a sentence that
// failed in one of them, or their numbers of sentences).
void check_same_sentences(const NamedDump& a, const NamedDump& b);

// One attention type (or one extra: scores, norms) of one sentence in both runs, on the layers
// (matched by label) and heads (by number) both hold, in A's order: each run's values and masked
// heads, and B - A per cell (0 under a causal mask). No layer or head in common: layers() or
// heads of all three is empty.
struct MatricesDifference {
  AttentionMatrices a, b;    // the shared layers and heads of each run, its masked heads kept
  AttentionMatrices change;  // B - A, [layers][heads][rows][cols]; masked is empty
};
MatricesDifference matrices_difference(const AttentionMatrices& a, const AttentionMatrices& b);

// One head's largest change: the cell where |B - A| is largest over the sentences compared.
struct HeadChange {
  std::string type;   // encoder, decoder or cross
  std::string layer;  // its label
  int head = 0;
  float change = 0;  // B - A there
  float a = 0, b = 0;
  int sentence = 0;                         // numbered from 1
  int row = 0, col = 0;                     // the cell, from 0
  std::string query, key;                   // the pieces of its row and column
  bool masked_a = false, masked_b = false;  // --mask-heads switched the head off in A, in B
};

// Per head both dumps hold (by type, layer label and head number), its largest change over
// `sentences` (numbers from 1; empty: all), the most changed head first. Blank and failed
// sentences have no cells. `suffix` compares one of the extras instead of the weights
// (dump_schema.h: kScoresSuffix, kWeightedNormsSuffix, kHeadNormsSuffix, whose one value per
// query has no key: HeadChange::key is empty), on the types whose extra both dumps hold; the
// masked flags are still the weights'. Throws Error when the dumps share no head.
std::vector<HeadChange> largest_changes(const NamedDump& a, const NamedDump& b,
                                        const std::vector<int>& sentences,
                                        const char* suffix = nullptr);

// Whether a head is left out of the tables as unchanged: B - A = 0 in every cell and masked in
// the same runs (the tables count these heads on one line).
bool is_unchanged(const HeadChange& change);

// The changes as an aligned text table with a heading line, for a terminal; the heads that did
// not change at all are counted on one last line. `what` follows "largest change per head" in
// the heading ("of the scores"); `per_row` (the head norms) names the query without a key.
std::string change_table(const std::vector<HeadChange>& changes, const NamedDump& a,
                         const NamedDump& b, const std::string& what = "", bool per_row = false);

}  // namespace minimt
