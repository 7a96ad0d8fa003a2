// minimt command line: parses options, calls the library, prints. Exit codes live here only:
// 0 success, 1 failure (bad model, unreadable file, a sentence that failed), 2 usage error.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "minimt/attention_dump.h"
#include "minimt/blas_runtime.h"
#include "minimt/error.h"
#include "minimt/model.h"
#include "minimt/paths.h"
#include "minimt/translator.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

std::string executable_dir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, n);
  return path.substr(0, path.find_last_of('/'));
}

// --model, else $MINIMT_MODEL, else the shipped models/en-fr next to the build or install tree.
std::string resolve_model_dir(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("MINIMT_MODEL"); env && *env) return env;
  const std::string exe = executable_dir();
  for (const char* relative : {"/../models/en-fr", "/../share/minimt/models/en-fr"})
    if (minimt::file_size(exe + relative + std::string("/config.json")) >= 0) return exe + relative;
  return exe + "/../models/en-fr";
}

struct TranslateArgs {
  std::string model;
  int max_length = 256;
  std::string dump_attention;
  std::vector<std::string> texts;
};

struct ModelArgs {
  std::string model;
};

struct TokenizeArgs {
  std::string model;
  std::string side = "source";
  std::vector<std::string> texts;
};

void add_model_option(CLI::App& command, std::string& target) {
  command.add_option("-m,--model", target,
                     "model directory (default: $MINIMT_MODEL, else the shipped models/en-fr)");
}

// Prints one translation line per sentence; returns false if any sentence failed.
bool print_translations(const std::vector<minimt::Translation>& translations, int first_line) {
  bool all_ok = true;
  for (size_t i = 0; i < translations.size(); ++i) {
    const minimt::Translation& t = translations[i];
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

int run_translate(const TranslateArgs& args) {
  minimt::Translator translator(minimt::Model::load(resolve_model_dir(args.model)));
  minimt::TranslateOptions options;
  options.max_length = args.max_length;
  options.record_attention = !args.dump_attention.empty();

  std::ofstream dump_file;
  std::unique_ptr<minimt::AttentionDumpWriter> dump;
  if (options.record_attention) {
    dump_file.open(args.dump_attention);
    if (!dump_file) throw minimt::IoError("cannot write " + args.dump_attention);
    dump = std::make_unique<minimt::AttentionDumpWriter>(dump_file, translator.model());
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
    if (!dump_file) throw minimt::IoError("cannot write " + args.dump_attention);
  }
  return all_ok ? 0 : kExitFailure;
}

std::string human_bytes(long long bytes) {
  char text[32];
  if (bytes >= (1 << 20))
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1048576.0);
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.1f KB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%lld B", bytes);
  return text;
}

int run_info(const ModelArgs& args) {
  auto model = minimt::Model::load(resolve_model_dir(args.model));
  const minimt::ModelConfig& c = model->config();
  std::cout << "model          " << model->directory() << "\n"
            << "architecture   encoder-decoder Transformer, " << c.encoder_layers << " + "
            << c.decoder_layers << " layers, " << minimt::to_string(c.norm_position) << "-norm\n"
            << "d_model        " << c.d_model << "\n"
            << "heads          " << c.num_heads << " x head_dim " << c.head_dim << "\n"
            << "d_ff           " << c.d_ff << " (" << minimt::to_string(c.activation) << ")\n"
            << "positions      " << minimt::to_string(c.positions) << ", max " << c.max_positions
            << "\n"
            << "embeddings     " << (c.scale_embeddings ? "scaled by sqrt(d_model)" : "unscaled")
            << ", output " << (c.tie_output ? "tied to decoder embeddings" : "lm_head")
            << (model->weights().final_logits_bias ? " + final_logits_bias" : "") << "\n"
            << "vocabulary     source " << c.source_vocab_size << ", target " << c.target_vocab_size
            << "\n"
            << "special ids    pad " << c.special.pad << ", unk " << c.special.unk << ", bos "
            << c.special.bos << ", eos " << c.special.eos << ", decoder start "
            << c.decoder_start_token << "\n"
            << "parameters     " << model->weights().parameter_count << "\n";
  for (const auto& file : model->files())
    std::cout << "file           " << file.path << " (" << human_bytes(file.bytes) << ")\n";
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  std::cout << "blas           OpenBLAS, core " << minimt::blas_core_name()
            << (forced ? std::string(" (OPENBLAS_CORETYPE=") + forced + ")" : "") << ", "
            << minimt::blas_threads() << " threads\n";
  return 0;
}

int run_tokenize(const TokenizeArgs& args) {
  minimt::Translator translator(minimt::Model::load(resolve_model_dir(args.model)));
  const minimt::Model& model = translator.model();
  auto print = [&](const std::string& text) {
    std::vector<int> ids;
    const minimt::Tokenizer* tokenizer = &model.target_tokenizer();
    if (args.side == "source") {
      ids = translator.source_ids(text);  // exactly what the encoder reads, eos included
      tokenizer = &model.source_tokenizer();
    } else {
      ids = tokenizer->encode(text);
    }
    std::string pieces, numbers;
    for (size_t i = 0; i < ids.size(); ++i) {
      pieces += (i ? " " : "") + tokenizer->piece(ids[i]);
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

}  // namespace

int main(int argc, char** argv) {
  minimt::ensure_fast_blas_kernels(argv);
  minimt::set_blas_threads(
      1);  // small matrices: threads inside one product cost more than they give

  CLI::App app{"minimt: run encoder-decoder Transformer translators and look inside them"};
  app.set_version_flag("--version", std::string("minimt ") + MINIMT_VERSION);
  app.require_subcommand(1);

  TranslateArgs translate;
  CLI::App* translate_cmd =
      app.add_subcommand("translate", "translate sentences (arguments or stdin lines)");
  add_model_option(*translate_cmd, translate.model);
  translate_cmd
      ->add_option("--max-length", translate.max_length,
                   "most tokens to generate per sentence, eos included (capped at "
                   "max_positions)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  translate_cmd->add_option("--dump-attention", translate.dump_attention,
                            "write every attention weight to this JSON file");
  translate_cmd->add_option("text", translate.texts, "sentences; with none, read stdin lines");

  ModelArgs info;
  CLI::App* info_cmd = app.add_subcommand("info", "describe a model and the BLAS kernels in use");
  add_model_option(*info_cmd, info.model);

  TokenizeArgs tokenize;
  CLI::App* tokenize_cmd = app.add_subcommand("tokenize", "show pieces and ids");
  add_model_option(*tokenize_cmd, tokenize.model);
  tokenize_cmd->add_option("--side", tokenize.side, "source or target")
      ->check(CLI::IsMember({"source", "target"}))
      ->capture_default_str();
  tokenize_cmd->add_option("text", tokenize.texts, "texts; with none, read stdin lines");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "minimt: " << e.what() << "\nRun 'minimt --help' for usage.\n";
    return kExitUsage;
  }

  try {
    if (*translate_cmd) return run_translate(translate);
    if (*info_cmd) return run_info(info);
    if (*tokenize_cmd) return run_tokenize(tokenize);
  } catch (const minimt::Error& e) {
    std::cerr << "minimt: error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "minimt: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitUsage;
}
