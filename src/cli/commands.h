// The subcommands of the minimt executable. main.cpp declares the options with CLI11 and calls
// one of these; each prints its results and returns an exit status (0 or 1). Library errors
// arrive as minimt::Error exceptions, which main.cpp reports.
#pragma once

#include <string>
#include <vector>

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

}  // namespace minimt::cli
