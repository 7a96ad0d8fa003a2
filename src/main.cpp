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
  // At most one subcommand; a missing one is reported after parsing, so that an unknown word
  // (minimt transalte) is reported as such rather than as a missing subcommand.
  app.require_subcommand(0, 1);

  minimt::cli::TranslateArgs translate;
  CLI::App* translate_cmd = app.add_subcommand(
      "translate", "translate sentences: arguments, or the lines of a file or stdin");
  add_model_option(*translate_cmd, translate.model);
  translate_cmd
      ->add_option("--max-length", translate.max_length,
                   "most tokens to generate per sentence, eos included (capped at max_positions)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  CLI::Option* input_option =
      translate_cmd
          ->add_option("-i,--input", translate.input, "read lines from FILE (default, or -: stdin)")
          ->type_name("FILE");
  translate_cmd
      ->add_option("-o,--output", translate.output, "write to FILE (default, or -: stdout)")
      ->type_name("FILE");
  translate_cmd
      ->add_option("--format", translate.format,
                   "text: one translation per line; jsonl: one JSON object per line")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  translate_cmd
      ->add_option("--threads", translate.threads,
                   "lines translated in parallel (default 0: one thread per core)")
      ->type_name("N")
      ->check(CLI::Range(0, 1024));
  translate_cmd
      ->add_option("--batch-size", translate.batch_size,
                   "consecutive lines per batch, the unit of work of a thread")
      ->type_name("N")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  translate_cmd->add_flag("--fail-fast", translate.fail_fast,
                          "stop at the first line that cannot be translated");
  translate_cmd->add_flag("-q,--quiet", translate.quiet, "no progress bar and no warnings");
  CLI::Option* dump_option =
      translate_cmd
          ->add_option("--dump-attention", translate.dump_attention,
                       "write the attention weights to this JSON file (one entry per line)")
          ->type_name("FILE");
  // Each list is one argument ("0,-1"), so that the sentences after it stay sentences.
  auto parse_list = [](const std::string& option, const std::string& list) {
    std::vector<std::string> items;
    for (size_t start = 0;;) {
      size_t comma = list.find(',', start);
      std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
      if (item.empty()) throw CLI::ValidationError(option, "an empty item in '" + list + "'");
      for (const auto& seen : items)
        if (seen == item) throw CLI::ValidationError(option, "'" + item + "' is listed twice");
      items.push_back(item);
      if (comma == std::string::npos) return items;
      start = comma + 1;
    }
  };
  auto parse_numbers = [parse_list](const std::string& option, const std::string& list,
                                    bool negative, const std::string& what) {
    std::vector<int> numbers;
    for (const auto& item : parse_list(option, list)) {
      size_t digits = negative && item[0] == '-' ? 1 : 0;
      if (item.size() == digits || item.size() > digits + 6 ||
          item.find_first_not_of("0123456789", digits) != std::string::npos)
        throw CLI::ValidationError(option, "'" + item + "' is not " + what);
      numbers.push_back(std::stoi(item));
    }
    return numbers;
  };
  translate_cmd
      ->add_option_function<std::string>(
          "--dump-types",
          [&](const std::string& list) {
            translate.dump_types = parse_list("--dump-types", list);
            for (const auto& type : translate.dump_types)
              if (type != "encoder" && type != "decoder" && type != "cross")
                throw CLI::ValidationError("--dump-types",
                                           "'" + type + "' is not encoder, decoder or cross");
          },
          "attention to dump: any of encoder,decoder,cross (default: all)")
      ->type_name("LIST")
      ->needs(dump_option);
  translate_cmd
      ->add_option_function<std::string>(
          "--dump-layers",
          [&](const std::string& list) {
            translate.dump_layers = parse_numbers("--dump-layers", list, true,
                                                  "a layer number (0 is the first, -1 the last)");
          },
          "layers to dump, e.g. 0,-1 (negative counts from the end; default: all)")
      ->type_name("LIST")
      ->needs(dump_option);
  translate_cmd
      ->add_option_function<std::string>(
          "--dump-heads",
          [&](const std::string& list) {
            translate.dump_heads = parse_numbers("--dump-heads", list, false,
                                                 "a head number (heads are numbered from 0)");
          },
          "heads to dump, e.g. 0,3 (numbered from 0; default: all)")
      ->type_name("LIST")
      ->needs(dump_option);
  translate_cmd
      ->add_option("--view", translate.view,
                   "also render the attention as one self-contained HTML page (as minimt view "
                   "does; it shows what --dump-* select when given)")
      ->type_name("FILE.html");
  CLI::Option* align_flag = translate_cmd->add_flag(
      "--align", translate.align,
      "after each translation, a tab and its word alignment in Pharaoh format (source-target, "
      "e.g. 0-0 1-2 2-1), from cross-attention; jsonl: an \"alignment\" field");
  translate_cmd
      ->add_option("--align-layer", translate.align_layer,
                   "decoder layer the alignment reads (negative counts from the end)")
      ->type_name("N")
      ->capture_default_str()
      ->needs(align_flag);
  translate_cmd
      ->add_option_function<std::string>(
          "--align-heads",
          [&](const std::string& list) {
            translate.align_heads = parse_numbers("--align-heads", list, false,
                                                  "a head number (heads are numbered from 0)");
          },
          "heads whose cross-attention the alignment averages, e.g. 0,3 (default: all)")
      ->type_name("LIST")
      ->needs(align_flag);
  translate_cmd
      ->add_option("--align-rule", translate.align_rule,
                   "best-source: each target word to its best source word; best-target: each "
                   "source word to its best target word; intersection: links both agree on")
      ->check(CLI::IsMember({"best-source", "best-target", "intersection"}))
      ->capture_default_str()
      ->needs(align_flag);
  translate_cmd
      ->add_option("text", translate.texts, "sentences, one per argument; with none, read lines")
      ->excludes(input_option);

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
      ->type_name("FILE")
      ->required();
  view_cmd
      ->add_option("-o,--output", view.output,
                   "the page to write (default: the dump's name with .html; - for stdout)")
      ->type_name("FILE");
  view_cmd->add_option("--title", view.title, "the page's title")->type_name("TEXT");
  view_cmd
      ->add_option("--svg", view.svg,
                   "also write static SVGs, one per attention type: PREFIX-encoder.svg, "
                   "PREFIX-decoder.svg, PREFIX-cross.svg (PREFIX-N-TYPE.svg for sentence N "
                   "when several are shown)")
      ->type_name("PREFIX");
  view_cmd
      ->add_option("--sentences", view.sentences,
                   "only these sentences, e.g. 1,4-6 (numbered from 1; default: all)")
      ->type_name("LIST")
      ->allow_extra_args(false)  // one argument each time: the dump after it stays the dump
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& item) {
            return minimt::cli::is_sentence_range(item) ? std::string()
                                                        : "not a sentence number or range: " + item;
          },
          "N|N-M"));

  // --version also works after a subcommand (minimt translate --version), as --help does.
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; }))
    command->set_version_flag("--version", std::string("minimt ") + MINIMT_VERSION);

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
  std::cerr << "minimt: a subcommand is required\nRun 'minimt --help' for usage.\n";
  return kExitUsage;
}
