// minimt translate: lines in, one output record per line out, in input order, streamed. This
// file declares the options, search's among them, which fill a Request (app/run/request.h);
// line_run.h runs it.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/option_parsing.h"

namespace minimt::cli {
namespace {

namespace limits = request_limits;

// --beam-size, --n-best, --length-penalty, --prefix, --prefix-column, --alternatives.
void add_search_options(CLI::App& command, SearchSettings& search, RecordSettings& record) {
  add_ranged_option(command, "--beam-size", search.beam_size,
                    "hypotheses kept at each step (1: greedy search, the arg-max at every step)",
                    "N", 1, limits::kMaxBeamSize)
      ->capture_default_str();
  command
      .add_option_function<int>(
          "--n-best", [&search](int k) { search.n_best = k; },
          "output the K best hypotheses of the beam (K <= --beam-size), best first: text lines "
          "LINE<TAB>RANK<TAB>SCORE<TAB>TRANSLATION; jsonl: an \"n_best\" list")
      ->type_name("K")
      ->check(number_check(1, limits::kMaxBeamSize));
  add_ranged_option(command, "--length-penalty", search.length_penalty,
                    "rank finished hypotheses by score / length^A, the length counting eos (0: "
                    "no penalty; 1: the mean log-probability per token)",
                    "A", -limits::kMaxLengthPenalty, limits::kMaxLengthPenalty)
      ->capture_default_str();
  command
      .add_option("--prefix", search.prefix,
                  "force every translation to start with TEXT (target pieces), then go on")
      ->type_name("TEXT");
  command.add_flag("--prefix-column", search.prefix_column,
                   "input lines are SOURCE<TAB>PREFIX: each line forces its own start (a line "
                   "without a tab has none, or --prefix's)");
  add_ranged_option(command, "--no-repeat-ngram-size", search.no_repeat_ngram_size,
                    "no N-gram twice in a translation (the start token counted, as generate() "
                    "does; 0: no rule; default: the model's, else 0)",
                    "N", 0, limits::kMaxNgram);
  add_ranged_option(command, "--repetition-penalty", search.repetition_penalty,
                    "a token already in the translation: its score / P (* P if negative), as "
                    "generate()'s repetition_penalty (default: the model's, else 1: none)",
                    "P", 1e-6f, limits::kMaxRepetitionPenalty);
  command
      .add_option("--task", search.task,
                  "a task of the model (T5's task_specific_params, listed by minimt info): its "
                  "source prefix and generation settings")
      ->type_name("NAME");
  add_ranged_option(command, "--alternatives", record.alternatives,
                    "jsonl: the K most likely tokens and their probabilities at every output "
                    "position (\"alternatives\")",
                    "K", 0, limits::kMaxAlternatives);
}

// --sample, --temperature, --top-k, --top-p, --seed.
void add_sampling_options(CLI::App& command, SearchSettings& search) {
  CLI::Option* sample = command.add_flag(
      "--sample", search.sample,
      "draw each token at random from the model's distribution instead of searching");
  add_ranged_option(command, "--temperature", search.temperature,
                    "with --sample: divide the logits by T (below 1: surer, above 1: more varied)",
                    "T", limits::kMinTemperature, limits::kMaxTemperature)
      ->capture_default_str()
      ->needs(sample);
  add_ranged_option(command, "--top-k", search.top_k,
                    "with --sample: draw among the K most likely tokens only (0: all)", "K", 0,
                    limits::kMaxTopK)
      ->capture_default_str()
      ->needs(sample);
  add_ranged_option(command, "--top-p", search.top_p,
                    "with --sample: draw among the fewest most likely tokens whose probability "
                    "reaches P (0 < P <= 1)",
                    "P", limits::kMinTopP, 1.0f)
      ->capture_default_str()
      ->needs(sample);
  command
      .add_option_function<uint64_t>(
          "--seed", [&search](uint64_t seed) { search.seed = seed; },
          "with --sample: the seed (line L draws from its own generator seeded by the seed and "
          "L, so batches and threads do not change the output; default: a random one, shown)")
      ->type_name("N")
      ->check(number_check<uint64_t>(0, UINT64_MAX, false))
      ->needs(sample);
}

void add_translate_options(CLI::App& command, LineRunArgs& args) {
  command.description("translate sentences: arguments, or the lines of a file or stdin");
  args.command = &command;
  CLI::Option* input = add_io_options(command, args);
  add_search_options(command, args.request.search, args.request.record);
  add_sampling_options(command, args.request.search);
  add_attention_options(command, args);
  add_align_options(command, args);
  command.add_option("text", args.texts, "sentences, one per argument; with none, read lines")
      ->excludes(input);
}

}  // namespace

Command add_translate(CLI::App& app) {
  return add_command<LineRunArgs>(app, "translate", add_translate_options, run_lines);
}

}  // namespace minimt::cli
