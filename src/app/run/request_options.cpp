// The table of request options (request_options.h), in the order translate --help lists them.
#include "minimt/app/run/request_options.h"

#include <climits>
#include <iterator>

#include "app/run/option_fields.h"
#include "minimt/app/analysis/alignment.h"
#include "minimt/app/record/dump_schema.h"
#include "minimt/app/views/terminal_heatmap.h"
#include "minimt/engine/attribution.h"
#include "minimt/engine/compute_type.h"

namespace minimt {
namespace {

namespace limits = request_limits;
using option_fields::Field;
using option_fields::of;

constexpr unsigned kLines = kForTranslate | kForScore;

// The message of what `parse` throws for `text`, or "".
template <typename Parse>
std::string parse_problem(const std::string& text, Parse parse) {
  try {
    parse(text);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string dump_type_problem(const std::string& type) {
  if (dump_schema::find_attention_type(type)) return "";
  std::string names;  // "encoder, decoder or cross"
  const size_t count = std::size(dump_schema::kAttentionTypes);
  for (size_t i = 0; i < count; ++i)
    names += (i == 0           ? ""
              : i + 1 == count ? " or "
                               : ", ") +
             std::string(dump_schema::kAttentionTypes[i].type);
  return "'" + type + "' is not " + names;
}

// An item of --attribute: a method's name or "all".
std::string attribution_problem(const std::string& name) {
  AttributionMethod method{};
  if (name == "all" || enum_value(kAttributionMethodNames, name, method)) return "";
  return "'" + name + "' is not a method: " + enum_name_list(kAttributionMethodNames) + " or all";
}

std::string ig_rule_problem(const std::string& name) {
  IgRule rule{};
  if (enum_value(kIgRuleNames, name, rule)) return "";
  return "'" + name + "' is not a rule: " + enum_name_list(kIgRuleNames);
}

// A row: its name, where it applies and its field; the calls after it say the rest.
class Row {
 public:
  Row(const char* name, unsigned uses, Field field) {
    option_.name = name;
    option_.uses = uses;
    option_.type = field.type;
    option_.get = std::move(field.get);
    option_.set = std::move(field.set);
  }
  Row& alias(const char* name) { return option_.alias = name, *this; }
  Row& range(double low, double high) { return option_.range = OptionRange{low, high}, *this; }
  Row& value(const char* name) { return option_.value_name = name, *this; }
  Row& needs(const char* name) { return option_.needs = name, *this; }
  Row& items(const char* what) { return option_.item = what, *this; }
  Row& example(const char* json) { return option_.example = json, *this; }
  Row& help(const char* text) { return option_.help = text, *this; }
  Row& named_in(std::string Request::*field) { return option_.named_in = field, *this; }
  Row& problem(std::function<std::string(const std::string&)> check) {
    return option_.problem = std::move(check), *this;
  }
  // --help shows the field's value in a default Request, or `text`.
  Row& shows_default(const std::string& text = "") {
    option_.shown_default = text.empty() ? option_value_text(*option_.get(Request())) : text;
    return *this;
  }
  operator RequestOption() const { return option_; }

 private:
  RequestOption option_;
};

std::vector<RequestOption> make_options() {
  using S = SearchSettings;
  using R = RecordSettings;
  const auto search = [](auto field) { return of(&Request::search, field); };
  const auto record = [](auto field) { return of(&Request::record, field); };
  return {
      Row("compute_type", kLines, of(&Request::compute_type))
          .value("TYPE:{float32,int8,bf16}")
          .problem([](const std::string& type) { return parse_problem(type, parse_compute_type); })
          .example(R"({"compute_type": "int8"})")
          .help("number format of the matrix products: float32, int8 (weights per output "
                "channel, activations per row; faster) or bf16 (CPUs with AVX512_BF16); "
                "default: int8 for a model minimt convert wrote in int8, else float32"),
      // mask_heads: the option's first name, kept working as it was. "Mask" is the causal
      // mask's word (it acts on the scores); this acts after the softmax.
      Row("ablate_heads", kLines, record(&R::mask_heads))
          .alias("mask_heads")
          .value("SPEC")
          .named_in(&Request::mask_heads_named)
          .example(R"({"ablate_heads": "cross:-1:0"})")
          .help("ablate heads: TYPE:LAYER:HEAD,... with TYPE encoder, decoder or cross, LAYER "
                "and HEAD numbers (negative from the end) or *; an ablated head's weights are "
                "set to 0 after the softmax"),
      Row("max_length", kForTranslate, search(&S::max_length))
          .range(0, limits::kMaxLength)
          .value("N")
          .shows_default()
          .example(R"({"max_length": 4})")
          .help("most tokens to generate per sentence, eos included (capped at max_positions)"),
      Row("threads", kLines | kNotServed, of(&Request::threads))
          .range(0, limits::kMaxThreads)
          .value("N")
          .help("batches run in parallel (default 0: one thread per core)"),
      Row("batch_size", kLines | kNotServed, of(&Request::batch_size))
          .range(1, limits::kMaxBatchSize)
          .value("N")
          .shows_default()
          .help("consecutive lines per batch, the unit of work of a thread (--threads times "
                "--batch-size at most 65536)"),
      Row("fail_fast", kLines | kNotServed, of(&Request::fail_fast))
          .help("stop at the first line that fails (invalid UTF-8, a missing column)"),
      Row("beam_size", kForTranslate, search(&S::beam_size))
          .range(1, limits::kMaxBeamSize)
          .value("N")
          .shows_default()
          .example(R"({"beam_size": 4})")
          .help("hypotheses kept at each step (1: greedy search, the arg-max at every step)"),
      Row("n_best", kForTranslate, search(&S::n_best))
          .range(1, limits::kMaxBeamSize)
          .value("K")
          .example(R"({"beam_size": 4, "n_best": 2})")
          .help("output the K best hypotheses of the beam (K <= --beam-size), best first: text "
                "lines LINE<TAB>RANK<TAB>SCORE<TAB>TRANSLATION; jsonl: an \"n_best\" list"),
      Row("length_penalty", kForTranslate, search(&S::length_penalty))
          .range(-limits::kMaxLengthPenalty, limits::kMaxLengthPenalty)
          .value("A")
          .shows_default()
          .example(R"({"beam_size": 4, "length_penalty": 1})")
          .help("rank finished hypotheses by score / length^A, the length counting eos (0: no "
                "penalty; 1: the mean log-probability per token)"),
      Row("prefix", kForTranslate, search(&S::prefix))
          .value("TEXT")
          .example(R"({"prefix": "Le"})")
          .help("force every translation to start with TEXT (target pieces), then go on"),
      Row("prefix_column", kForTranslate | kNotServed, search(&S::prefix_column))
          .help("input lines are SOURCE<TAB>PREFIX: each line forces its own start (a line "
                "without a tab has none, or --prefix's)"),
      Row("no_repeat_ngram_size", kForTranslate, search(&S::no_repeat_ngram_size))
          .range(0, limits::kMaxNgram)
          .value("N")
          .example(R"({"no_repeat_ngram_size": 2})")
          .help("no N-gram twice in a translation (the start token counted, as generate() "
                "does; 0: no rule; default: the model's, else 0)"),
      Row("repetition_penalty", kForTranslate, search(&S::repetition_penalty))
          .range(1e-6, limits::kMaxRepetitionPenalty)
          .value("P")
          .example(R"({"repetition_penalty": 1.5})")
          .help("a token already in the translation: its score / P (* P if negative), as "
                "generate()'s repetition_penalty (default: the model's, else 1: none)"),
      Row("task", kForTranslate, search(&S::task))
          .value("NAME")
          .example(R"({"task": "translate_en_to_de"})")
          .help("a task of the model (T5's task_specific_params, listed by minimt info): its "
                "source prefix and generation settings"),
      Row("alternatives", kForTranslate, record(&R::alternatives))
          .range(0, limits::kMaxAlternatives)
          .value("K")
          .example(R"({"alternatives": 3})")
          .help("jsonl: the K most likely tokens and their probabilities at every output "
                "position (\"alternatives\")"),
      Row("sample", kForTranslate, search(&S::sample))
          .example(R"({"sample": true, "seed": 7})")
          .help("draw each token at random from the model's distribution instead of searching"),
      Row("temperature", kForTranslate, search(&S::temperature))
          .range(limits::kMinTemperature, limits::kMaxTemperature)
          .value("T")
          .shows_default()
          .needs("sample")
          .example(R"({"sample": true, "seed": 7, "temperature": 0.5})")
          .help("with --sample: divide the logits by T (below 1: surer, above 1: more varied)"),
      Row("top_k", kForTranslate, search(&S::top_k))
          .range(0, limits::kMaxTopK)
          .value("K")
          .shows_default()
          .needs("sample")
          .example(R"({"sample": true, "seed": 7, "top_k": 5})")
          .help("with --sample: draw among the K most likely tokens only (0: all)"),
      Row("top_p", kForTranslate, search(&S::top_p))
          .range(limits::kMinTopP, 1)
          .value("P")
          .shows_default()
          .needs("sample")
          .example(R"({"sample": true, "seed": 7, "top_p": 0.9})")
          .help("with --sample: draw among the fewest most likely tokens whose probability "
                "reaches P (0 < P <= 1)"),
      Row("seed", kForTranslate, search(&S::seed))
          .value("N")
          .needs("sample")
          .example(R"({"sample": true, "seed": 7})")
          .help("with --sample: the seed (line L draws from its own generator seeded by the "
                "seed and L, so batches and threads do not change the output; default: a "
                "random one, shown)"),
      Row("dump_types", kForAttention, record(&R::dump_types))
          .value("LIST")
          .needs("dump_attention")
          .problem(dump_type_problem)
          .example(R"({"dump_types": ["cross"]})")
          .help("attention to dump: any of encoder,decoder,cross (default: all)"),
      Row("dump_layers", kForAttention, record(&R::dump_layers))
          .value("LIST")
          .needs("dump_attention")
          .items("a layer number (0 is the first, -1 the last)")
          .example(R"({"dump_layers": [0, -1]})")
          .help("layers to dump, e.g. 0,-1 (negative counts from the end; default: all)"),
      Row("dump_heads", kForAttention, record(&R::dump_heads))
          .range(0, INT_MAX)
          .value("LIST")
          .needs("dump_attention")
          .items("a head number (heads are numbered from 0)")
          .example(R"({"dump_heads": [1, 3]})")
          .help("heads to dump, e.g. 0,3 (numbered from 0; default: all)"),
      Row("show", kLines | kNotServed, record(&R::show))
          .value("TYPE[:LAYER[:HEAD]]")
          .problem(
              [](const std::string& spec) { return parse_problem(spec, parse_heatmap_choice); })
          .help("draw each line's attention as a heatmap on stderr, for the terminal: TYPE "
                "(encoder, decoder or cross), then :LAYER (default -1, the last) and :HEAD (a "
                "number, or avg: the average over the heads not masked, the default), e.g. "
                "cross, cross:-1:avg, decoder:0:3"),
      Row("view", kForAttention | kNoFlag, record(&R::view))
          .example(R"({"view": true})")
          .help("the attention page instead of the dump"),
      Row("rollout", kForAttention, record(&R::rollout))
          .example(R"({"rollout": true})")
          .help("with --dump-attention or --view: add attention rollout (Abnar and Zuidema "
                "2020, a heuristic): encoder_rollout [S][S] over every encoder layer, and "
                "cross_rollout [T][S], the head-averaged cross-attention of the last decoder "
                "layer times it"),
      Row("dump_scores", kForAttention, record(&R::dump_scores))
          .example(R"({"dump_scores": true})")
          .help("with --dump-attention or --view: add each type's scores, the softmax's input "
                "q.k/sqrt(d_k): encoder_self_scores, decoder_self_scores (null where the causal "
                "mask is), cross_scores; a masked head's scores too"),
      Row("dump_vectors", kForAttention, record(&R::dump_vectors))
          .example(R"({"dump_vectors": true})")
          .help("with --dump-attention or --view: add each head's query, key and value vectors "
                "(bias included, unscaled): TYPE_queries, TYPE_keys, TYPE_values"),
      Row("dump_norms", kForAttention, record(&R::dump_norms))
          .example(R"({"dump_norms": true})")
          .help("with --dump-attention or --view: add ||a_ij v_j W_O^h||, what key j adds to "
                "query i through head h (Kobayashi et al. 2020), as TYPE_weighted_norms, and "
                "each head's whole contribution ||sum_j a_ij v_j W_O^h|| as TYPE_head_norms"),
      Row("logit_lens", kForAttention, record(&R::logit_lens))
          .range(0, limits::kMaxAlternatives)
          .value("K")
          .example(R"({"logit_lens": 3})")
          .help("with --dump-attention or --view: the K most likely tokens had the output "
                "layer read each decoder layer's output, at each position "
                "(decoder_layer_predictions; 0: none)"),
      Row("align", kLines, record(&R::align))
          .example(R"({"align": true})")
          .help("after each translation, a tab and its word alignment in Pharaoh format "
                "(source-target, e.g. 0-0 1-2 2-1), from cross-attention; jsonl: an "
                "\"alignment\" field"),
      Row("align_layer", kLines, record(&R::align_layer))
          .value("N")
          .shows_default()
          .needs("align")
          .example(R"({"align": true, "align_layer": 0})")
          .help("decoder layer the alignment reads (negative counts from the end)"),
      Row("align_heads", kLines, record(&R::align_heads))
          .range(0, INT_MAX)
          .value("LIST")
          .needs("align")
          .items("a head number (heads are numbered from 0)")
          .example(R"({"align": true, "align_heads": [0, 2]})")
          .help("heads whose cross-attention the alignment averages, e.g. 0,3 (default: all)"),
      Row("align_rule", kLines, record(&R::align_rule))
          .value("RULE")
          .shows_default(to_string(kDefaultAlignRule))
          .needs("align")
          .problem([](const std::string& rule) { return parse_problem(rule, parse_align_rule); })
          .example(R"({"align": true, "align_rule": "intersection"})")
          .help("union: the links of best-source and best-target together (the default, the "
                "lowest error rate); best-source: each target word to its best source word; "
                "best-target: each source word to its best target word; intersection: the "
                "links both agree on; grow-diag-final: the intersection grown toward the "
                "union, as statistical aligners do (docs/attention-view.md measures them)"),
      Row("attribute", kLines, record(&R::attribute))
          .value("METHODS")
          .problem(attribution_problem)
          .example(R"({"attribute": ["saliency", "occlusion"]})")
          .help("with --format jsonl, --dump-attention or --view: attribute each output token "
                "to the source tokens and the decoder's input tokens, teacher-forced on the "
                "output: any of saliency, input_x_gradient, integrated_gradients, occlusion, "
                "or all (\"attributions\"; docs/model-format.md, \"Attributions\")"),
      Row("ig_steps", kLines, record(&R::ig_steps))
          .range(1, limits::kMaxIgSteps)
          .value("M")
          .shows_default()
          .needs("attribute")
          .example(R"({"attribute": ["integrated_gradients"], "ig_steps": 8})")
          .help("integrated gradients' steps: the gradient at M points of the path from the "
                "all-zero embeddings (a forward and backward pass each)"),
      Row("ig_rule", kLines, record(&R::ig_rule))
          .value("RULE")
          .shows_default()
          .needs("attribute")
          .problem(ig_rule_problem)
          .example(R"({"attribute": ["integrated_gradients"], "ig_rule": "riemann_right"})")
          .help("integrated gradients' rule: gauss_legendre (M Gauss-Legendre nodes and weights "
                "on [0, 1], Captum's default) or riemann_right (the points k/M, weights 1/M)"),
  };
}

}  // namespace

const std::vector<RequestOption>& request_options() {
  static const std::vector<RequestOption> options = make_options();
  return options;
}

}  // namespace minimt
