// The subcommands of the minimt executable. main.cpp declares the options with CLI11 and calls
// one of these; each prints its results and returns an exit status (0 or 1). Library errors
// arrive as minimt::Error exceptions, which main.cpp reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minimt/model.h"

namespace minimt {
struct AttentionDump;
struct ViewOptions;
}  // namespace minimt

namespace minimt::cli {

// --model, else $MINIMT_MODEL, else the shipped models/en-fr next to the build or install tree.
std::string resolve_model_dir(const std::string& option);

// Loads the model named by --model (resolve_model_dir) with the kernel $MINIMT_KERNELS asks for:
// avx512, avx2, generic or openblas (unset or "auto": the fastest this CPU runs).
std::shared_ptr<const Model> load_model(const std::string& option);

struct TranslateArgs {
  std::string model;
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
  bool align = false;                   // --align: a tab and the word alignment after each line
  int align_layer = -1;                 // the decoder layer it reads; negative from the end
  std::vector<int> align_heads;         // the heads it averages; empty: all
  std::string align_rule = "best-source";  // best-source, best-target or intersection
  std::vector<std::string> texts;       // sentences from the command line, instead of lines
};
int run_translate(const TranslateArgs& args);

struct InfoArgs {
  std::string model;
};
int run_info(const InfoArgs& args);

struct TokenizeArgs {
  std::string model;
  std::string side = "source";
  std::vector<std::string> texts;
};
int run_tokenize(const TokenizeArgs& args);

struct ViewArgs {
  std::string dump;                    // the attention dump; "-" for stdin
  std::string output;                  // the page; "" for the dump's name with .html, "-" stdout
  std::string title;                   // "" for "minimt attention"
  std::vector<std::string> sentences;  // "3", "5-8"; empty: all
  std::string svg;                     // not "": also PREFIX[-N]-TYPE.svg files
};
int run_view(const ViewArgs& args);

// Sentence numbers from items like "3" and "5-8" (numbered from 1); throws Error otherwise.
std::vector<int> parse_sentence_ranges(const std::vector<std::string>& items);
bool is_sentence_range(const std::string& text);
// Writes the page for `dump` to `path` ("-": stdout) and, if `report`, says so on stderr (view,
// translate --view).
void write_view(const AttentionDump& dump, const std::string& path, const ViewOptions& options,
                bool report = true);

}  // namespace minimt::cli
