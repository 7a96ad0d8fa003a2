// minimt show: the heatmaps of an attention dump drawn in the terminal (terminal_heatmap.h), or
// the difference of two dumps of the same sentences (dump_difference.h) with each head's
// largest change, of every key both hold that --values names. The front end reads the dumps and
// says how its terminal draws.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/views/dump_difference.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt {

struct ShowOptions {
  HeatmapChoice choice;
  std::vector<int> sentences;  // numbered from 1; empty: every sentence of the dump
  TerminalStyle style;
  // A first line naming the model and compute type that wrote the dump, and the dump's notes on
  // what the model's scores include (translate --show draws without it).
  bool header = true;
};

// Each chosen sentence's heatmap, a blank line between two; a blank or failed sentence gets a
// line saying so. Throws Error when a sentence lacks the type, layer or head chosen.
std::string show_dump(const AttentionDump& dump, const ShowOptions& options);

// "" unless options.choice.values names an attribution method that the chosen sentences of
// the dump lack (naming the dump, the first such sentence and --attribute METHOD), or an
// attention type without its map (the encoder: attributions are of the outputs), or a layer or
// head chosen (an attribution has none).
std::string missing_attribution(const NamedDump& d, const ShowOptions& options);

// "" when both dumps hold what options.choice.values draws (the type's weights, its scores, its
// weight x norm, the logit lens) in every chosen sentence translated in both; else why not,
// naming the dump that lacks which key, the sentence and the option that writes it.
std::string missing_values(const NamedDump& a, const NamedDump& b, const ShowOptions& options);

// Each chosen sentence's B - A of what options.choice.values names: a heatmap of the weights,
// the scores or weight x norm, each run's probability of the predicted pieces (or, for weight x
// norm, each run's head norm) on the right; or the logit lens of both. Then the table of every
// head's largest change over those sentences of the weights, the scores, or weight x norm and
// the head norms (none for the lens). Throws Error when the dumps do not hold the same
// sentences (check_same_sentences) or a sentence lacks the values (missing_values says which).
std::string show_difference(const NamedDump& a, const NamedDump& b, const ShowOptions& options);

}  // namespace minimt
