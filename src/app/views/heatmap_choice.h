// What a terminal heatmap (terminal_heatmap.h) draws of a sentence: the matrices, layer and
// head a HeatmapChoice names, the values of its cells (one head's, or the average over the heads
// not masked), and the labels and heading of its grid.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/views/terminal_grid.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

// The matrices, layer and head a choice names in a sentence.
struct Chosen {
  const AttentionMatrices* m = nullptr;
  const dump_schema::AttentionType* type = nullptr;
  int layer = 0;            // into m's layers
  std::optional<int> head;  // into m's heads; unset: the average
};

// Throws Error when the sentence lacks the type, layer or head chosen, naming what it holds.
Chosen choose(const DumpSentence& s, const HeatmapChoice& choice);

// "head 2", "head 2 (masked ...)" or "average of heads 0, 1, 3 (head 2 masked, left out)".
std::string head_text(const Chosen& c);

// The weights drawn: one head's, or the average, [rows][cols].
std::vector<float> chosen_weights(const Chosen& c);

// An extra of the chosen matrices (`suffix`: the scores, weight x norm, head norms) at the
// chosen layer: one head's, or the mean over the heads the weights' average is over,
// [rows][its cols]. Throws Error naming the key and `option`, which writes it, when the sentence
// lacks it for these layers and heads.
std::vector<float> chosen_extra(const DumpSentence& s, const Chosen& c, const char* suffix,
                                const char* option);

// The largest magnitude of the cells not under the causal mask.
float largest(const std::vector<float>& values, int cols, bool causal);

// The labels and heading shared by a heatmap and a difference: the title (type, layer, head,
// sentence, then `what`), source, translation and axes; the tokens as row and column labels;
// for the decoder's steps, the predicted piece and its probability on the right.
Grid grid_for(const DumpSentence& s, const Chosen& c, const std::string& what);

// The same of any matrix with `type`'s rows and columns: `title`, the source, the translation
// and `axes` above; the tokens as labels; the predicted pieces on the right of decoder steps.
Grid labelled_grid(const DumpSentence& s, const dump_schema::AttentionType& type,
                   const std::string& title, const std::string& axes);

}  // namespace minimt::view
