// minimt tokenize: the pieces and ids of texts, as the model's tokenizers cut them.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/app/translator.h"

namespace minimt::cli {
namespace {

struct TokenizeArgs {
  std::string model;
  std::string side = "source";
  std::vector<std::string> texts;
};

int run_tokenize(const TokenizeArgs& args) {
  Translator translator(load_model(args.model));
  const Model& model = translator.model();
  const bool source = args.side == "source";
  const Tokenizer& tokenizer = source ? model.source_tokenizer() : model.target_tokenizer();
  // One line per text: the pieces, a tab, the ids. The source side shows exactly what the
  // encoder reads (eos included, cut to max_positions).
  auto print = [&](const std::string& text) {
    std::vector<int> ids = source ? translator.source_ids(text) : tokenizer.encode(text);
    std::string pieces, numbers;
    for (size_t i = 0; i < ids.size(); ++i) {
      pieces += (i ? " " : "") + tokenizer.piece(ids[i]);
      numbers += (i ? " " : "") + std::to_string(ids[i]);
    }
    std::cout << pieces << '\t' << numbers << '\n';
  };
  if (!args.texts.empty()) {
    for (const auto& text : args.texts) print(text);
  } else {
    std::string line;
    while (std::getline(std::cin, line)) print(line);
  }
  return 0;
}

void add_tokenize_options(CLI::App& command, TokenizeArgs& args) {
  command.description("show the pieces and ids of texts");
  add_model_option(command, args.model);
  add_side_option(command, args.side, "source or target");
  command.add_option("text", args.texts, "texts; with none, read stdin lines");
}

}  // namespace

Command add_tokenize(CLI::App& app) {
  return add_command<TokenizeArgs>(app, "tokenize", add_tokenize_options, run_tokenize);
}

}  // namespace minimt::cli
