// minimt info's lines (model_info.h).
#include "minimt/app/views/model_info.h"

#include <nlohmann/json.hpp>

#include "minimt/base/human_size.h"
#include "minimt/base/visible_text.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/engine/kernel_registry.h"

namespace minimt {
namespace {

// The Linear kernels MINIMT_KERNELS may choose on this CPU (from the registry), the default first.
std::string kernels_on_this_cpu() {
  const std::string best = to_string(best_linear_kernel());
  std::string list = best + " (default)";
  for (const KernelEntry& entry : kernel_list())
    if (entry.job == KernelJob::kLinear && entry.supported && entry.name != best)
      list += ", " + entry.name;
  return list + " (MINIMT_KERNELS)";
}

// What each compute type runs on this CPU; "(default)" marks the one that runs without
// --compute-type, which is the model file's (int8 for a file minimt convert wrote as int8).
std::string compute_types_on_this_cpu(const Model& model) {
  const auto mark = [&](ComputeType type) {
    return model.default_compute_type() == type ? std::string(" (default)") : std::string();
  };
  std::string bf16 = compute_type_unsupported_reason(ComputeType::kBf16).empty()
                         ? "bf16 (AVX512_BF16)" + mark(ComputeType::kBf16)
                         : "bf16 not here (no AVX512_BF16)";
  // "int8 (avx2 kernel) (default)": the mark last, after what the type runs.
  return "float32" + mark(ComputeType::kFloat32) + ", int8 (" +
         to_string(int8_kernel_matching(model.linear_kernel())) + " kernel)" +
         mark(ComputeType::kInt8) + ", " + bf16;
}

std::string linear_layers_text(const Model& model) {
  const std::string size = human_size(static_cast<long long>(model.packed_bytes()));
  if (model.compute_type() == ComputeType::kInt8)
    return "int8, minimt's " + to_string(model.int8_kernel()) + " kernel (" + size + ")";
  if (model.compute_type() == ComputeType::kBf16)
    return "bf16, minimt's avx512-bf16 kernel (" + size + ")";
  if (model.packed_bytes())
    return "float32, minimt's " + to_string(model.linear_kernel()) + " kernel on packed weights (" +
           size + ")";
  return "float32, OpenBLAS";
}

// What a format-2 model does differently (docs/model-format.md, "Format version 2").
std::string format2_text(const ModelConfig& c) {
  std::string text = std::string(to_string(c.norm)) + (c.final_norms ? " (final per stack)" : "");
  if (c.position_offset) text += ", positions from " + std::to_string(c.position_offset);
  if (c.relative_attention.buckets)
    text += ", relative bias " + std::to_string(c.relative_attention.buckets) + " buckets to " +
            std::to_string(c.relative_attention.max_distance);
  if (c.embedding_norm) text += ", embedding norm";
  if (!c.scale_attention_scores) text += ", scores not scaled";
  if (!c.biases) text += ", no biases";
  if (c.feed_forward == FeedForwardKind::kGated) text += ", gated feed-forward";
  if (c.output_scale != 1.0f) text += ", output x " + std::to_string(c.output_scale);
  if (c.forced_first_token >= 0)
    text += ", first token forced: " + std::to_string(c.forced_first_token);
  std::string prefix;
  for (int id : c.source_prefix) prefix += (prefix.empty() ? "" : " ") + std::to_string(id);
  if (!prefix.empty()) text += ", source prefix [" + prefix + "]";
  return text;
}

// A generation block's settings as translate's options.
std::string settings_text(const GenerationSettings& s) {
  std::string text;
  auto add = [&text](const std::string& item) { text += (text.empty() ? "" : ", ") + item; };
  const char* stopping[] = {"false", "true", "never"};
  if (s.beam_size) add("--beam-size " + std::to_string(*s.beam_size));
  if (s.length_penalty) add("--length-penalty " + nlohmann::json(*s.length_penalty).dump());
  if (s.early_stopping)
    add(std::string("early stopping ") + stopping[static_cast<int>(*s.early_stopping)]);
  if (s.max_length) add("--max-length " + std::to_string(*s.max_length));
  if (s.no_repeat_ngram_size)
    add("--no-repeat-ngram-size " + std::to_string(*s.no_repeat_ngram_size));
  if (s.repetition_penalty)
    add("--repetition-penalty " + nlohmann::json(*s.repetition_penalty).dump());
  return text;
}

// The model's generation block: what translate takes when the command line leaves it out.
std::string generation_text(const GenerationConfig& g) {
  std::string text = "from " + visible_text(g.origin.empty() ? "the model" : g.origin) + ": " +
                     settings_text(g.settings);
  if (g.forced_last_token >= 0)
    text += ", token " + std::to_string(g.forced_last_token) + " forced at the length limit";
  if (!g.bad_words.empty()) text += ", " + std::to_string(g.bad_words.size()) + " banned sequences";
  text += g.beam_rules == BeamRules::kTransformers ? "; transformers' beam search"
                                                   : "; minimt's beam search";
  text += " (options given to translate override these)";
  return text;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> model_info(const Model& model,
                                                            const std::string& blas_core_type) {
  const ModelConfig& c = model.config();
  std::vector<std::pair<std::string, std::string>> lines;
  auto add = [&lines](const char* label, std::string text) {
    lines.emplace_back(label, std::move(text));
  };
  const auto n = [](long long value) { return std::to_string(value); };
  add("model", visible_text(model.directory()));
  add("architecture", "encoder-decoder Transformer, " + n(c.encoder_layers) + " + " +
                          n(c.decoder_layers) + " layers, " + to_string(c.norm_position) + "-norm");
  add("d_model", n(c.d_model));
  add("heads", n(c.num_heads) + " x head_dim " + n(c.head_dim));
  add("d_ff", n(c.d_ff) + " (" + to_string(c.activation) + ")");
  add("positions", std::string(to_string(c.positions)) + ", max " + n(c.max_positions));
  add("embeddings", std::string(c.scale_embeddings ? "scaled by sqrt(d_model)" : "unscaled") +
                        ", output " + (c.tie_output ? "tied to decoder embeddings" : "lm_head") +
                        (model.weights().output.bias ? " + final_logits_bias" : ""));
  add("vocabulary", "source " + n(c.source_vocab_size) + ", target " + n(c.target_vocab_size));
  add("special ids", "pad " + n(c.special.pad) + ", unk " + n(c.special.unk) + ", bos " +
                         n(c.special.bos) + ", eos " + n(c.special.eos) + ", decoder start " +
                         n(c.decoder_start_token));
  add("parameters", n(model.weights().parameter_count));
  if (c.format_version > 1) add("format 2", format2_text(c));
  if (c.generation.present) {
    add("generation", generation_text(c.generation));
    for (const GenerationTask& task : c.generation.tasks) {
      const std::string settings = settings_text(task.settings);
      add("task", "--task " + visible_text(task.name) + ": " + n(task.source_prefix.size()) +
                      " source prefix ids" + (settings.empty() ? "" : ", " + settings));
    }
  }
  for (const auto& file : model.files())
    add("file", visible_text(file.path) + " (" + human_size(file.bytes) + ")");
  add("blas core",
      blas_core_name() + (blas_core_type.empty()
                              ? std::string(" (detected by OpenBLAS)")
                              : " (OPENBLAS_CORETYPE=" + visible_text(blas_core_type) + ")"));
  add("blas threads", n(blas_threads()) + " per matrix product");
  add("linear layers", linear_layers_text(model));
  add("kernels here", kernels_on_this_cpu());
  add("row kernels", std::string(row_kernel_name()) +
                         " (layer norm, log-sum-exp: the fastest here; all give the same bits)");
  add("attention", std::string(attention_kernel_name()) +
                       " kernel (q.k and a.v: the fastest here; all give the same bits)");
  add("compute types", compute_types_on_this_cpu(model));
  return lines;
}

}  // namespace minimt
