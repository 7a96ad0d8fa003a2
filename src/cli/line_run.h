// What `minimt translate` and `minimt score` share: lines in (arguments, -i FILE or stdin),
// batches on worker threads, one output record per line out in input order, attention dumps,
// the page and alignments. The two differ in what a line holds and what a record says.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "minimt/app/translator.h"

namespace minimt::cli {

struct LineRunArgs {
  bool scoring = false;  // minimt score: lines are source<TAB>target
  std::string model;
  std::string compute_type;  // "": the model file's (see --compute-type)
  int max_length = 256;
  std::string input;            // -i: a file; "" or "-" for stdin
  std::string output;           // -o: a file; "" or "-" for stdout
  std::string format = "text";  // text or jsonl
  int threads = 0;              // worker threads; 0: one per core
  int batch_size = 16;          // lines per Translator::translate call
  bool fail_fast = false;       // stop at the first line that fails
  bool quiet = false;           // no progress bar, no warnings (errors still print)
  std::string dump_attention;
  std::vector<std::string> dump_types;  // encoder, decoder, cross; empty: all
  std::vector<int> dump_layers;         // negative counts from the end; empty: all
  std::vector<int> dump_heads;          // empty: all
  std::string view;                     // --view: also render the attention as this HTML page
  bool rollout = false;                 // --rollout: attention rollout in the dump and page
  bool align = false;                   // --align: a tab and the word alignment after each line
  int align_layer = -1;                 // the decoder layer it reads; negative from the end
  std::vector<int> align_heads;         // the heads it averages; empty: all
  std::string align_rule;               // empty: the default rule
  std::vector<std::string> texts;       // lines from the command line, instead of -i/stdin
  // Search (translate only).
  int beam_size = 1;
  int n_best = 1;
  bool n_best_given = false;  // --n-best was given: JSON Lines records carry "n_best"
  float length_penalty = 0.0f;
  std::string prefix;
  bool prefix_column = false;
  bool sample = false;
  float temperature = 1.0f;
  int top_k = 0;
  float top_p = 1.0f;
  std::optional<uint64_t> seed;  // unset: a random one, reported on stderr
  int alternatives = 0;
  std::string mask_heads;  // --mask-heads SPEC (head_mask_spec.h)
  bool mask_heads_given = false;
};

// Runs translate or score with the arguments; returns the exit status.
int run_lines(const LineRunArgs& args);

// -m, --max-length (translate only), -i, -o, --format, --threads, --batch-size, --fail-fast,
// -q; returns -i.
CLI::Option* add_io_options(CLI::App& command, LineRunArgs& args);
// --dump-attention, --dump-types, --dump-layers, --dump-heads, --view, --rollout.
void add_attention_options(CLI::App& command, LineRunArgs& args);
// --align, --align-layer, --align-heads, --align-rule.
void add_align_options(CLI::App& command, LineRunArgs& args);

}  // namespace minimt::cli
