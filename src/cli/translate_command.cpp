#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "minimt/attention_dump.h"
#include "minimt/error.h"
#include "minimt/translator.h"

namespace minimt::cli {
namespace {

// Prints one translation line per sentence; returns false if any sentence failed.
bool print_translations(const std::vector<Translation>& translations, int first_line) {
  bool all_ok = true;
  for (size_t i = 0; i < translations.size(); ++i) {
    const Translation& t = translations[i];
    if (t.truncated)
      std::cerr << "minimt: warning: sentence " << first_line + i
                << " is longer than the model's max_positions and was cut\n";
    if (!t.ok()) {
      std::cerr << "minimt: error: sentence " << first_line + i << ": " << t.error << "\n";
      all_ok = false;
    }
    std::cout << t.text << '\n';
  }
  std::cout.flush();
  return all_ok;
}

}  // namespace

int run_translate(const TranslateArgs& args) {
  Translator translator(Model::load(resolve_model_dir(args.model)));
  TranslateOptions options;
  options.max_length = args.max_length;
  options.record_attention = !args.dump_attention.empty();

  std::ofstream dump_file;
  std::unique_ptr<AttentionDumpWriter> dump;
  if (options.record_attention) {
    dump_file.open(args.dump_attention);
    if (!dump_file) throw IoError("cannot write " + args.dump_attention);
    dump = std::make_unique<AttentionDumpWriter>(dump_file, translator.model());
  }
  auto handle = [&](const std::vector<std::string>& batch, int first_line) {
    auto translations = translator.translate(batch, options);
    if (dump)
      for (const auto& t : translations) dump->add(t);
    return print_translations(translations, first_line);
  };

  bool all_ok = true;
  if (!args.texts.empty()) {
    all_ok = handle(args.texts, 1);
  } else {
    std::string line;
    for (int number = 1; std::getline(std::cin, line); ++number) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      all_ok = handle({line}, number) && all_ok;
    }
  }
  if (dump) {
    dump->finish();
    dump_file.close();
    if (!dump_file) throw IoError("cannot write " + args.dump_attention);
  }
  return all_ok ? 0 : 1;
}

}  // namespace minimt::cli
