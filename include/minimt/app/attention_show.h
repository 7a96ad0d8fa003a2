// minimt show: the heatmaps of an attention dump drawn in the terminal (terminal_heatmap.h), or
// the difference of two dumps of the same sentences (dump_difference.h) with each head's
// largest change. The front end reads the dumps and says how its terminal draws.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/dump_difference.h"
#include "minimt/app/terminal_heatmap.h"

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

// Each chosen sentence's B - A heatmap, then the table of every head's largest change over those
// sentences. Throws Error when the dumps do not hold the same sentences (check_same_sentences).
std::string show_difference(const NamedDump& a, const NamedDump& b, const ShowOptions& options);

}  // namespace minimt
