#include <iostream>

#include "cli/commands.h"
#include "minimt/translator.h"

namespace minimt::cli {

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

}  // namespace minimt::cli
