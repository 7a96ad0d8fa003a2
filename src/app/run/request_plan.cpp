// plan_request: a Request's options for one model, each derived once (request_plan.h).
#include "minimt/app/run/request_plan.h"

#include <algorithm>

#include "minimt/app/record/dump_recorder.h"
#include "minimt/app/run/head_mask_spec.h"
#include "minimt/app/translate/target_prefix.h"
#include "minimt/base/from_end.h"

namespace minimt {
namespace {

// The alternatives the dump and the page keep at each output position: the page shows the
// most likely tokens there when the mouse is over it.
constexpr int kAlternativesDrawn = 5;

// --ablate-heads (--mask-heads), parsed once: the translator's mask, and its text for the dump.
std::shared_ptr<const HeadMask> head_mask(const Request& request, const ModelConfig& config,
                                          FieldSpelling spelling) {
  if (!request.record.mask_heads) return nullptr;
  try {
    return std::make_shared<const HeadMask>(parse_head_mask(*request.record.mask_heads, config));
  } catch (const Error& e) {
    // The message repeats the name the user typed; by default the option's word, ablation.
    const std::string name = !request.mask_heads_named.empty()  ? request.mask_heads_named
                             : spelling == FieldSpelling::kJson ? "ablate_heads"
                                                                : "--ablate-heads";
    throw RequestError(spelling == FieldSpelling::kJson ? name : "mask_heads",
                       name + ": " + e.what());
  }
}

// Why the alignment can link nothing, or "": every head it averages at its layer is masked.
std::string masked_alignment(const AlignmentOptions& alignment, int layer, int heads,
                             const HeadMask* mask) {
  if (!mask) return "";
  std::vector<int> chosen = alignment.heads;
  if (chosen.empty())
    for (int h = 0; h < heads; ++h) chosen.push_back(h);
  std::string listed;
  for (int h : chosen) {
    if (!mask->masked(AttentionKind::kCross, layer, h)) return "";
    listed += (listed.empty() ? "" : ",") + std::to_string(h);
  }
  return "--align: every head it averages (cross-attention layer " + std::to_string(layer) +
         ", heads " + listed +
         ") is ablated by --ablate-heads: their weights are all 0, so no words are linked";
}

// --prefix, the start of every translation, checked once: one that cannot be forced is refused
// with the request, not reported again on every line.
void check_prefix(const Request& request, const Model& model, FieldSpelling spelling) {
  if (request.search.prefix.empty()) return;
  try {
    target_prefix_ids(model, request.search.prefix);
  } catch (const InputError& e) {
    throw RequestError("prefix", field_name("prefix", spelling) + ": " + e.what());
  }
}

// --attribute's names ("all": every method) in the engine's order, --ig-steps and --ig-rule.
AttributionOptions attribution_options(const RecordSettings& r) {
  AttributionOptions a;
  for (const auto& [name, method] : kAttributionMethodNames)
    if (std::find(r.attribute.begin(), r.attribute.end(), name) != r.attribute.end() ||
        std::find(r.attribute.begin(), r.attribute.end(), "all") != r.attribute.end())
      a.methods.push_back(method);
  a.ig_steps = r.ig_steps;
  if (!r.ig_rule.empty()) enum_value(kIgRuleNames, r.ig_rule, a.ig_rule);  // checked
  return a;
}

TranslateOptions translate_options(const Request& request) {
  const SearchSettings& s = request.search;
  const RecordSettings& r = request.record;
  const bool drawn = r.dump_attention || r.view;
  TranslateOptions t;
  t.max_length = s.max_length;
  t.record_attention = drawn || r.align || r.show;
  t.beam_size = s.beam_size;
  t.n_best = s.n_best.value_or(1);
  t.keep_n_best = s.n_best.has_value();
  t.record_n_best = r.align && s.n_best;  // each hypothesis its own alignment
  t.length_penalty = s.length_penalty;
  t.no_repeat_ngram_size = s.no_repeat_ngram_size;
  t.repetition_penalty = s.repetition_penalty;
  t.task = s.task;
  t.sampling = {s.sample, s.temperature, s.top_k, s.top_p};
  t.seed = s.seed.value_or(0);
  t.prefix = s.prefix;
  t.columns = request.kind == RequestKind::kScore ? LineColumns::kSourceAndTarget
              : s.prefix_column                   ? LineColumns::kSourceAndPrefix
                                                  : LineColumns::kSource;
  t.alternatives = std::max(r.alternatives, drawn ? kAlternativesDrawn : 0);
  t.attribution = attribution_options(r);
  if (drawn) {
    t.record_extras = {r.dump_scores, r.dump_vectors, r.dump_norms, r.logit_lens > 0};
    t.logit_lens = r.logit_lens;
  }
  return t;
}

// record.show: its choice checked against the model, and a selection of what it draws (every
// head of its layer: the average needs them).
void plan_show(RequestPlan& plan, const ModelConfig& c, FieldSpelling spelling) {
  const HeatmapChoice choice = parse_heatmap_choice(*plan.request.record.show);
  const int layers = choice.type == "encoder" ? c.encoder_layers : c.decoder_layers;
  const int layer = index_from_end(choice.layer.value_or(-1), layers);
  const std::string name = field_name("show", spelling) + ": ";
  if (layer < 0 || layer >= layers)
    throw RequestError("show", name + "layer " + std::to_string(*choice.layer) +
                                   " does not exist (the model has " + std::to_string(layers) +
                                   " " + choice.type + " layers, numbered from 0; -1 the last)");
  if (choice.head && *choice.head >= c.num_heads)
    throw RequestError("show", name + "head " + std::to_string(*choice.head) +
                                   " does not exist (the model has " + std::to_string(c.num_heads) +
                                   " heads, numbered from 0)");
  plan.show = choice;
  plan.show->layer = layer;
  plan.show_selection.types = {choice.type};
  plan.show_selection.layers = {layer};
  plan.show_selection.masked_heads = plan.selection.masked_heads;
}

}  // namespace

RequestPlan plan_request(const Request& request, const Model& model, FieldSpelling spelling) {
  check_request(request, spelling);
  RequestPlan plan;
  plan.request = request;
  complete_seed(plan.request);
  const Request& checked = plan.request;
  const RecordSettings& r = checked.record;
  const ModelConfig& c = model.config();
  plan.batch.threads = request_threads(checked);
  plan.batch.batch_size = checked.batch_size;
  plan.batch.translate = translate_options(checked);
  check_prefix(checked, model, spelling);
  plan.batch.translate.head_mask = head_mask(checked, c, spelling);

  plan.alignment.layer = r.align_layer;
  plan.alignment.heads = r.align_heads;
  if (!r.align_rule.empty()) plan.alignment.rule = parse_align_rule(r.align_rule);
  if (r.align) {
    const int layer = check_alignment_options(plan.alignment, c.decoder_layers, c.num_heads);
    plan.alignment.no_links =
        masked_alignment(plan.alignment, layer, c.num_heads, plan.batch.translate.head_mask.get());
    if (!plan.alignment.no_links.empty()) plan.warnings.push_back(plan.alignment.no_links);
    // The alignment alone reads the attention: record only the cross attention it averages.
    if (!r.dump_attention && !r.view && !r.show) plan.batch.translate.record_cross_only = layer;
  }

  plan.selection.types = r.dump_types;
  plan.selection.layers = r.dump_layers;
  plan.selection.heads = r.dump_heads;
  plan.selection.rollout = r.rollout;
  plan.selection.scores = r.dump_scores;
  plan.selection.vectors = r.dump_vectors;
  plan.selection.norms = r.dump_norms;
  plan.selection.logit_lens = r.logit_lens;
  plan.selection.attributions = !r.attribute.empty();
  // Written to the dump: its weights are those of the masked model.
  if (plan.batch.translate.head_mask)
    plan.selection.masked_heads = plan.batch.translate.head_mask->to_string();
  if (r.dump_attention || r.view) check_dump_selection(plan.selection, c);
  if (r.show) plan_show(plan, c, spelling);
  return plan;
}

}  // namespace minimt
