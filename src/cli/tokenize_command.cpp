// minimt tokenize: the pieces and ids of texts, as the model's tokenizers cut them.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/translate/translator.h"
#include "minimt/base/text_input.h"
#include "minimt/base/visible_text.h"

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
  // encoder reads (eos included, cut to max_positions). A text longer than kMaxLineBytes is
  // cut there, as translate cuts it, and said so (`number` counts texts or lines from 1).
  auto print = [&](std::string text, long long number, const char* kind) {
    if (cut_to_limit(text))
      std::cerr << "minimt: warning: " << kind << " " << number << " is longer than "
                << kMaxLineBytes << " bytes: its first " << text.size()
                << " bytes were tokenized\n";
    std::vector<int> ids = source ? translator.source_ids(text) : tokenizer.encode(text);
    std::string pieces, numbers;
    for (size_t i = 0; i < ids.size(); ++i) {
      pieces += (i ? " " : "") + visible_text(tokenizer.piece(ids[i]));  // from the model file
      numbers += (i ? " " : "") + std::to_string(ids[i]);
    }
    std::cout << pieces << '\t' << numbers << '\n';
  };
  if (!args.texts.empty()) {
    for (size_t i = 0; i < args.texts.size(); ++i) print(args.texts[i], i + 1, "text");
    return 0;
  }
  // Lines as translate reads them: a line past kMaxLineBytes costs no more memory than that.
  LineReader reader("-");
  std::string line;
  while (reader.next(line) == LineReader::Status::kLine && std::cout)
    print(line, reader.lines_read(), "line");
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
