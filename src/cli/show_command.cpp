// minimt show: an attention dump's heatmaps in the terminal, or the difference of two dumps of
// the same sentences (B - A) of what --values names, with each head's largest change; or one
// dump's attributions of a method (--values METHOD).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/terminal_style.h"
#include "minimt/app/views/attention_show.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"

namespace minimt::cli {
namespace {

struct ShowArgs {
  std::vector<std::string> dumps;      // one, or A and B
  std::string type = "cross";          // --type
  std::optional<int> layer, head;      // --layer, --head (unset: the last layer, the average)
  std::vector<std::string> sentences;  // "3", "5-8"; empty: all
  std::string values = "weights";      // --values
  std::string color = "auto";
  int width = 0;
};

int run_show(const ShowArgs& args) {
  const AttentionDump a = read_dump_file(args.dumps[0]);
  ShowOptions options;
  options.choice.type = args.type;
  options.choice.layer = args.layer;
  options.choice.head = args.head;
  enum_value(kHeatmapValueNames, args.values, options.choice.values);  // --values checked it
  options.sentences = parse_sentence_ranges(args.sentences, static_cast<int>(a.sentences.size()));
  options.style = terminal_style(STDOUT_FILENO, args.color, args.width);
  std::string text;
  if (args.dumps.size() == 1) {
    const std::string missing = missing_attribution({a, args.dumps[0]}, options);
    if (!missing.empty()) throw UsageError(missing);
    text = show_dump(a, options);
  } else {
    const AttentionDump b = read_dump_file(args.dumps[1]);
    const NamedDump named_a{a, args.dumps[0]}, named_b{b, args.dumps[1]};
    check_same_sentences(named_a, named_b);
    const std::string missing = missing_values(named_a, named_b, options);
    if (!missing.empty()) throw UsageError(missing);
    text = show_difference(named_a, named_b, options);
  }
  std::cout << text;
  std::cout.flush();
  if (!std::cout) throw IoError("cannot write to stdout");
  return 0;
}

void add_show_options(CLI::App& command, ShowArgs& args) {
  command.description(
      "draw an attention dump's heatmaps in the terminal; with two dumps of the same sentences, "
      "their difference B - A and each head's largest change");
  command
      .add_option("dumps", args.dumps,
                  "the dump (translate --dump-attention); with a second one, B - A: e.g. "
                  "without and with --mask-heads, float32 and int8, two models")
      ->type_name("A.json [B.json]")
      ->required()
      ->expected(1, 2);
  command.add_option("--type", args.type, "the attention type: encoder, decoder or cross")
      ->type_name("TYPE")
      ->check(CLI::IsMember({"encoder", "decoder", "cross"}))
      ->capture_default_str();
  command
      .add_option_function<int>(
          "--layer", [&args](int layer) { args.layer = layer; },
          "the layer, by its number (negative: from the model's last layer, -1 the last, "
          "whichever layers the dump holds; default: the deepest layer in the dump)")
      ->type_name("N");
  command
      .add_option_function<std::string>(
          "--head",
          [&args](const std::string& head) {
            if (head != "avg")
              args.head = parse_numbers("--head", head, false, "a head number or avg")[0];
          },
          "a head's number, or avg: the average over the heads not masked (the default)")
      ->type_name("H");
  command
      .add_option("--values", args.values,
                  "weights: the attention weights; scores: what softmax read (a dump with "
                  "--dump-scores); norms: weight x norm (--dump-norms); lens: each decoder "
                  "layer's most likely next piece (--logit-lens); saliency, input_x_gradient, "
                  "integrated_gradients or occlusion: that attribution method's map "
                  "(--attribute METHOD), to the source (--type cross) or the decoder input "
                  "(--type decoder); of two dumps, B - A of it")
      ->type_name("WHAT")
      ->check(CLI::IsMember({"weights", "scores", "norms", "lens", "saliency", "input_x_gradient",
                             "integrated_gradients", "occlusion"}))
      ->capture_default_str();
  add_sentences_option(command, args.sentences);
  add_color_option(command, args.color);
  add_width_option(command, args.width);
}

}  // namespace

Command add_show(CLI::App& app) {
  return add_command<ShowArgs>(app, "show", add_show_options, run_show);
}

}  // namespace minimt::cli
