// minimt translate: lines in, one output record per line out, in input order, streamed (the
// run is line_run.h's). This file declares the options, search's among them.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/path_guard.h"

namespace minimt::cli {
namespace {

// The most hypotheses a batch may hold at once: --batch-size times --beam-size.
constexpr long long kMaxBeamsPerBatch = 65536;

// --beam-size, --n-best, --length-penalty, --prefix, --prefix-column, --alternatives.
void add_search_options(CLI::App& command, LineRunArgs& args) {
  command
      .add_option("--beam-size", args.beam_size,
                  "hypotheses kept at each step (1: greedy search, the arg-max at every step)")
      ->type_name("N")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  command
      .add_option_function<int>(
          "--n-best",
          [&args](int k) {
            args.n_best = k;
            args.n_best_given = true;
          },
          "output the K best hypotheses of the beam (K <= --beam-size), best first: text lines "
          "LINE<TAB>RANK<TAB>SCORE<TAB>TRANSLATION; jsonl: an \"n_best\" list")
      ->type_name("K")
      ->check(CLI::Range(1, 256));
  command
      .add_option("--length-penalty", args.length_penalty,
                  "rank finished hypotheses by score / length^A, the length counting eos (0: "
                  "no penalty; 1: the mean log-probability per token)")
      ->type_name("A")
      ->check(CLI::Range(-10.0f, 10.0f))
      ->capture_default_str();
  command
      .add_option("--prefix", args.prefix,
                  "force every translation to start with TEXT (target pieces), then go on")
      ->type_name("TEXT");
  command.add_flag("--prefix-column", args.prefix_column,
                   "input lines are SOURCE<TAB>PREFIX: each line forces its own start (a line "
                   "without a tab has none, or --prefix's)");
  command
      .add_option("--alternatives", args.alternatives,
                  "jsonl: the K most likely tokens and their probabilities at every output "
                  "position (\"alternatives\")")
      ->type_name("K")
      ->check(CLI::Range(0, 1000));
}

// --sample, --temperature, --top-k, --top-p, --seed.
void add_sampling_options(CLI::App& command, LineRunArgs& args) {
  CLI::Option* sample = command.add_flag(
      "--sample", args.sample,
      "draw each token at random from the model's distribution instead of searching");
  command
      .add_option("--temperature", args.temperature,
                  "with --sample: divide the logits by T (below 1: surer, above 1: more varied)")
      ->type_name("T")
      ->check(CLI::Range(1e-3f, 1e3f))
      ->capture_default_str()
      ->needs(sample);
  command
      .add_option("--top-k", args.top_k,
                  "with --sample: draw among the K most likely tokens only (0: all)")
      ->type_name("K")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str()
      ->needs(sample);
  command
      .add_option("--top-p", args.top_p,
                  "with --sample: draw among the fewest most likely tokens whose probability "
                  "reaches P (0 < P <= 1)")
      ->type_name("P")
      ->check(CLI::Range(1e-6f, 1.0f))
      ->capture_default_str()
      ->needs(sample);
  command
      .add_option_function<uint64_t>(
          "--seed", [&args](uint64_t seed) { args.seed = seed; },
          "with --sample: the seed (line L draws from its own generator seeded by the seed and "
          "L, so batches and threads do not change the output; default: a random one, shown)")
      ->type_name("N")
      ->needs(sample);
}

// The combinations no single option can refuse on its own.
void check_search_args(const LineRunArgs& args) {
  if (args.n_best > args.beam_size)
    throw UsageError("--n-best " + std::to_string(args.n_best) + " is more than --beam-size " +
                     std::to_string(args.beam_size) + ": a beam holds at most its size");
  if (args.sample && args.beam_size > 1)
    throw UsageError("--sample draws one hypothesis; it cannot be combined with --beam-size " +
                     std::to_string(args.beam_size));
  if (static_cast<long long>(args.batch_size) * args.beam_size > kMaxBeamsPerBatch)
    throw UsageError("--batch-size " + std::to_string(args.batch_size) + " times --beam-size " +
                     std::to_string(args.beam_size) + " is more than " +
                     std::to_string(kMaxBeamsPerBatch) + " hypotheses at once");
}

}  // namespace

Command add_translate(CLI::App& app) {
  auto args = std::make_shared<LineRunArgs>();
  CLI::App* command = app.add_subcommand(
      "translate", "translate sentences: arguments, or the lines of a file or stdin");
  CLI::Option* input = add_io_options(*command, *args);
  add_search_options(*command, *args);
  add_sampling_options(*command, *args);
  add_attention_options(*command, *args);
  add_align_options(*command, *args);
  command->add_option("text", args->texts, "sentences, one per argument; with none, read lines")
      ->excludes(input);
  return {command, [args] {
            check_search_args(*args);
            return run_lines(*args);
          }};
}

}  // namespace minimt::cli
