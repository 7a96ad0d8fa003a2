// The subcommands of the minimt executable. main.cpp declares the options with CLI11 and calls
// one of these; each prints its results and returns an exit status (0 or 1). Library errors
// arrive as minimt::Error exceptions, which main.cpp reports.
#pragma once

#include <string>
#include <vector>

namespace minimt {
struct AttentionDump;
struct ViewOptions;
}  // namespace minimt

namespace minimt::cli {

// --model, else $MINIMT_MODEL, else the shipped models/en-fr next to the build or install tree.
std::string resolve_model_dir(const std::string& option);

struct TranslateArgs {
  std::string model;
  int max_length = 256;
  std::string dump_attention;
  std::vector<std::string> texts;
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
};
int run_view(const ViewArgs& args);

// Sentence numbers from items like "3" and "5-8" (numbered from 1); throws Error otherwise.
std::vector<int> parse_sentence_ranges(const std::vector<std::string>& items);
bool is_sentence_range(const std::string& text);
// Writes the page for `dump` to `path` ("-": stdout) and says so on stderr (view, translate --view).
void write_view(const AttentionDump& dump, const std::string& path, const ViewOptions& options);

}  // namespace minimt::cli
