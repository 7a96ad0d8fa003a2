// minimt command line: declares the options with CLI11 and runs one subcommand. Exit codes live
// here only: 0 success, 1 failure (bad model, unreadable file, a sentence that failed),
// 2 usage error.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "minimt/blas_runtime.h"
#include "minimt/error.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

void add_model_option(CLI::App& command, std::string& target) {
  command.add_option("-m,--model", target,
                     "model directory (default: $MINIMT_MODEL, else the shipped models/en-fr)");
}

}  // namespace

int main(int argc, char** argv) {
  minimt::ensure_fast_blas_kernels(argv);
  // minimt's matrices are small: threads inside one product cost more than they give, so
  // parallelism comes from translating sentences side by side instead.
  minimt::set_blas_threads(1);

  CLI::App app{"minimt: run encoder-decoder Transformer translators and look inside them"};
  app.set_version_flag("--version", std::string("minimt ") + MINIMT_VERSION);
  app.require_subcommand(1);

  minimt::cli::TranslateArgs translate;
  CLI::App* translate_cmd =
      app.add_subcommand("translate", "translate sentences (arguments, or stdin lines)");
  add_model_option(*translate_cmd, translate.model);
  translate_cmd
      ->add_option("--max-length", translate.max_length,
                   "most tokens to generate per sentence, eos included (capped at max_positions)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  translate_cmd->add_option("--dump-attention", translate.dump_attention,
                            "write every attention weight to this JSON file");
  translate_cmd->add_option("text", translate.texts, "sentences; with none, read stdin lines");

  minimt::cli::InfoArgs info;
  CLI::App* info_cmd = app.add_subcommand("info", "describe a model and the BLAS kernels in use");
  add_model_option(*info_cmd, info.model);

  minimt::cli::TokenizeArgs tokenize;
  CLI::App* tokenize_cmd = app.add_subcommand("tokenize", "show the pieces and ids of texts");
  add_model_option(*tokenize_cmd, tokenize.model);
  tokenize_cmd->add_option("--side", tokenize.side, "source or target")
      ->check(CLI::IsMember({"source", "target"}))
      ->capture_default_str();
  tokenize_cmd->add_option("text", tokenize.texts, "texts; with none, read stdin lines");

  minimt::cli::ViewArgs view;
  CLI::App* view_cmd = app.add_subcommand(
      "view", "render an attention dump as one self-contained HTML page of heatmaps");
  view_cmd->add_option("dump", view.dump, "the dump (translate --dump-attention); - for stdin")
      ->required();
  view_cmd->add_option("-o,--output", view.output,
                       "the page to write (default: the dump's name with .html; - for stdout)");
  view_cmd->add_option("--title", view.title, "the page's title");
  view_cmd
      ->add_option("--sentences", view.sentences,
                   "only these sentences, e.g. 1,4-6 (numbered from 1; default: all)")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& item) {
            return minimt::cli::is_sentence_range(item) ? std::string()
                                                        : "not a sentence number or range: " + item;
          },
          "N|N-M"));

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
    if (*translate_cmd) return minimt::cli::run_translate(translate);
    if (*info_cmd) return minimt::cli::run_info(info);
    if (*tokenize_cmd) return minimt::cli::run_tokenize(tokenize);
    if (*view_cmd) return minimt::cli::run_view(view);
  } catch (const minimt::Error& e) {
    std::cerr << "minimt: error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "minimt: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitUsage;
}
