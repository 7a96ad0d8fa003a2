// The options translate and score share (line_run.h): each fills its field of the Request.
#include <CLI/CLI.hpp>
#include <climits>

#include "cli/commands.h"
#include "cli/line_run.h"
#include "cli/option_parsing.h"
#include "cli/terminal_style.h"
#include "minimt/base/error.h"

namespace minimt::cli {
namespace {

namespace limits = request_limits;

// A LIST option (one argument, e.g. "0,-1") parsed by `parse` when given; needs `needed`.
void add_list_option(CLI::App& command, const std::string& name, const std::string& help,
                     CLI::Option* needed, std::function<void(const std::string&)> parse) {
  command.add_option_function<std::string>(name, std::move(parse), help)
      ->type_name("LIST")
      ->needs(needed);
}

}  // namespace

CLI::Option* add_io_options(CLI::App& command, LineRunArgs& args) {
  Request& request = args.request;
  const bool scoring = request.kind == RequestKind::kScore;
  add_model_option(command, request.model);
  add_compute_type_option(command, request.compute_type);
  // --mask-heads: the option's first name, kept working as it was. "Mask" is the causal mask's
  // word (it acts on the scores); this acts after the softmax. Two options rather than one with
  // two names, so that a message repeats the name the user typed.
  CLI::Option* ablate =
      command
          .add_option_function<std::string>(
              "--ablate-heads",
              [&args](const std::string& spec) {
                args.request.record.mask_heads = spec;  // even "": names no head, a usage error
                args.request.mask_heads_named = "--ablate-heads";
              },
              "ablate heads: TYPE:LAYER:HEAD,... with TYPE encoder, decoder or cross, LAYER and "
              "HEAD numbers (negative from the end) or *; an ablated head's weights are set to "
              "0 after the softmax")
          ->type_name("SPEC");
  command
      .add_option_function<std::string>(
          "--mask-heads",
          [&args](const std::string& spec) {
            args.request.record.mask_heads = spec;
            args.request.mask_heads_named = "--mask-heads";
          },
          "the older name of --ablate-heads")
      ->type_name("SPEC")
      ->excludes(ablate);
  if (!scoring)
    command
        .add_option("--max-length", request.search.max_length,
                    "most tokens to generate per sentence, eos included (capped at max_positions)")
        ->check(number_check(0, limits::kMaxLength))
        ->capture_default_str();
  CLI::Option* input =
      command.add_option("-i,--input", args.input, "read lines from FILE (default, or -: stdin)")
          ->check(non_empty_path())
          ->type_name("FILE");
  command.add_option("-o,--output", args.output, "write to FILE (default, or -: stdout)")
      ->check(non_empty_path())
      ->type_name("FILE");
  command
      .add_option("--format", args.format,
                  scoring ? "text: one score per line; jsonl: one JSON object per line"
                          : "text: one translation per line; jsonl: one JSON object per line")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
  add_ranged_option(command, "--threads", request.threads,
                    "batches run in parallel (default 0: one thread per core)", "N", 0,
                    limits::kMaxThreads);
  add_ranged_option(command, "--batch-size", request.batch_size,
                    "consecutive lines per batch, the unit of work of a thread (--threads times "
                    "--batch-size at most 65536)",
                    "N", 1, limits::kMaxBatchSize)
      ->capture_default_str();
  command.add_flag("--fail-fast", request.fail_fast,
                   "stop at the first line that fails (invalid UTF-8, a missing column)");
  command.add_flag("-q,--quiet", args.quiet, "no progress bar and no warnings");
  return input;
}

// --dump-attention, --dump-types, --dump-layers, --dump-heads, --view, --show, --color, --width,
// --rollout, and what the weights come from: --dump-scores, --dump-vectors, --dump-norms,
// --logit-lens.
void add_attention_options(CLI::App& command, LineRunArgs& args) {
  RecordSettings& record = args.request.record;
  CLI::Option* dump =
      command
          .add_option("--dump-attention", args.dump_attention,
                      "write the attention weights to this JSON file (one entry per line)")
          ->check(non_empty_path())
          ->type_name("FILE");
  add_list_option(command, "--dump-types",
                  "attention to dump: any of encoder,decoder,cross (default: all)", dump,
                  [&record](const std::string& list) {
                    record.dump_types = parse_list("--dump-types", list);
                    for (const auto& type : record.dump_types)
                      if (const std::string problem = dump_type_problem(type); !problem.empty())
                        throw CLI::ValidationError("--dump-types", problem);
                  });
  add_list_option(command, "--dump-layers",
                  "layers to dump, e.g. 0,-1 (negative counts from the end; default: all)", dump,
                  [&record](const std::string& list) {
                    record.dump_layers =
                        parse_numbers("--dump-layers", list, true,
                                      "a layer number (0 is the first, -1 the last)");
                  });
  add_list_option(
      command, "--dump-heads", "heads to dump, e.g. 0,3 (numbered from 0; default: all)", dump,
      [&record](const std::string& list) {
        record.dump_heads =
            parse_numbers("--dump-heads", list, false, "a head number (heads are numbered from 0)");
      });
  command
      .add_option("--view", args.view,
                  "also render the attention as one self-contained HTML page (as minimt view "
                  "does; it shows what --dump-* select when given)")
      ->check(non_empty_path())
      ->type_name("FILE.html");
  CLI::Option* show =
      command
          .add_option_function<std::string>(
              "--show", [&record](const std::string& spec) { record.show = spec; },
              "draw each line's attention as a heatmap on stderr, for the terminal: TYPE "
              "(encoder, decoder or cross), then :LAYER (default -1, the last) and :HEAD (a "
              "number, or avg: the average over the heads not masked, the default), e.g. "
              "cross, cross:-1:avg, decoder:0:3")
          ->type_name("TYPE[:LAYER[:HEAD]]");
  add_color_option(command, args.color)->needs(show);
  add_width_option(command, args.width)->needs(show);
  command.add_flag("--rollout", record.rollout,
                   "with --dump-attention or --view: add attention rollout (Abnar and Zuidema "
                   "2020, a heuristic): encoder_rollout [S][S] over every encoder layer, and "
                   "cross_rollout [T][S], the head-averaged cross-attention of the last decoder "
                   "layer times it");
  command.add_flag("--dump-scores", record.dump_scores,
                   "with --dump-attention or --view: add each type's scores, the softmax's input "
                   "q.k/sqrt(d_k): encoder_self_scores, decoder_self_scores (null where the "
                   "causal mask is), cross_scores; a masked head's scores too");
  command.add_flag("--dump-vectors", record.dump_vectors,
                   "with --dump-attention or --view: add each head's query, key and value "
                   "vectors (bias included, unscaled): TYPE_queries, TYPE_keys, TYPE_values");
  command.add_flag("--dump-norms", record.dump_norms,
                   "with --dump-attention or --view: add ||a_ij v_j W_O^h||, what key j adds to "
                   "query i through head h (Kobayashi et al. 2020), as TYPE_weighted_norms, and "
                   "each head's whole contribution ||sum_j a_ij v_j W_O^h|| as TYPE_head_norms");
  add_ranged_option(command, "--logit-lens", record.logit_lens,
                    "with --dump-attention or --view: the K most likely tokens had the output "
                    "layer read each decoder layer's output, at each position "
                    "(decoder_layer_predictions)",
                    "K", 1, limits::kMaxAlternatives);
}

// --align, --align-layer, --align-heads, --align-rule.
void add_align_options(CLI::App& command, LineRunArgs& args) {
  RecordSettings& record = args.request.record;
  CLI::Option* align = command.add_flag(
      "--align", record.align,
      "after each translation, a tab and its word alignment in Pharaoh format (source-target, "
      "e.g. 0-0 1-2 2-1), from cross-attention; jsonl: an \"alignment\" field");
  command
      .add_option("--align-layer", record.align_layer,
                  "decoder layer the alignment reads (negative counts from the end)")
      ->type_name("N")
      ->check(number_check(INT_MIN, INT_MAX, false))
      ->capture_default_str()
      ->needs(align);
  add_list_option(command, "--align-heads",
                  "heads whose cross-attention the alignment averages, e.g. 0,3 (default: all)",
                  align, [&record](const std::string& list) {
                    record.align_heads = parse_numbers("--align-heads", list, false,
                                                       "a head number (heads are numbered from 0)");
                  });
  command
      .add_option("--align-rule", record.align_rule,
                  "union: the links of best-source and best-target together (the default, the "
                  "lowest error rate); best-source: each target word to its best source word; "
                  "best-target: each source word to its best target word; intersection: the "
                  "links both agree on; grow-diag-final: the intersection grown toward the "
                  "union, as statistical aligners do (docs/attention-view.md measures them)")
      ->type_name("RULE")
      ->check(align_rule_problem, "")
      ->default_str(default_align_rule())
      ->needs(align);
}

}  // namespace minimt::cli
