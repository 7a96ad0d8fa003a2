// minimt info: the model's configuration and files, and the BLAS kernels in use.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/base/visible_text.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/engine/kernel_registry.h"
#include "minimt/model/model.h"

namespace minimt::cli {
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

// The model's generation block: what translate takes when the command line leaves it out.
std::string generation_text(const GenerationConfig& g) {
  auto settings_text = [](const GenerationSettings& s) {
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
  };
  std::string text = "from " + visible_text(g.origin.empty() ? "the model" : g.origin) + ": " +
                     settings_text(g.settings);
  if (g.forced_last_token >= 0)
    text += ", token " + std::to_string(g.forced_last_token) + " forced at the length limit";
  if (!g.bad_words.empty()) text += ", " + std::to_string(g.bad_words.size()) + " banned sequences";
  text += g.beam_rules == BeamRules::kTransformers ? "; transformers' beam search"
                                                   : "; minimt's beam search";
  text += " (options given to translate override these)";
  for (const GenerationTask& task : g.tasks)
    text += "\ntask           --task " + visible_text(task.name) + ": " +
            std::to_string(task.source_prefix.size()) + " source prefix ids" +
            (settings_text(task.settings).empty() ? "" : ", " + settings_text(task.settings));
  return text;
}

int run_info(const std::string& model_option, const std::string& compute_type) {
  auto model = load_model(model_option, compute_type);
  const ModelConfig& c = model->config();
  // Names from the file system and the environment are printed through visible_text.
  std::cout << "model          " << visible_text(model->directory()) << "\n"
            << "architecture   encoder-decoder Transformer, " << c.encoder_layers << " + "
            << c.decoder_layers << " layers, " << to_string(c.norm_position) << "-norm\n"
            << "d_model        " << c.d_model << "\n"
            << "heads          " << c.num_heads << " x head_dim " << c.head_dim << "\n"
            << "d_ff           " << c.d_ff << " (" << to_string(c.activation) << ")\n"
            << "positions      " << to_string(c.positions) << ", max " << c.max_positions << "\n"
            << "embeddings     " << (c.scale_embeddings ? "scaled by sqrt(d_model)" : "unscaled")
            << ", output " << (c.tie_output ? "tied to decoder embeddings" : "lm_head")
            << (model->weights().output.bias ? " + final_logits_bias" : "") << "\n"
            << "vocabulary     source " << c.source_vocab_size << ", target " << c.target_vocab_size
            << "\n"
            << "special ids    pad " << c.special.pad << ", unk " << c.special.unk << ", bos "
            << c.special.bos << ", eos " << c.special.eos << ", decoder start "
            << c.decoder_start_token << "\n"
            << "parameters     " << model->weights().parameter_count << "\n";
  if (c.format_version > 1) std::cout << "format 2       " << format2_text(c) << "\n";
  if (c.generation.present) std::cout << "generation     " << generation_text(c.generation) << "\n";
  for (const auto& file : model->files())
    std::cout << "file           " << visible_text(file.path) << " (" << human_size(file.bytes)
              << ")\n";
  const char* core_type = std::getenv("OPENBLAS_CORETYPE");
  std::cout << "blas core      " << blas_core_name()
            << (core_type ? " (OPENBLAS_CORETYPE=" + visible_text(core_type) + ")"
                          : std::string(" (detected by OpenBLAS)"))
            << "\n"
            << "blas threads   " << blas_threads() << " per matrix product\n"
            << "linear layers  " << linear_layers_text(*model) << "\n"
            << "kernels here   " << kernels_on_this_cpu() << "\n"
            << "row kernels    " << row_kernel_name()
            << " (layer norm, log-sum-exp: the fastest here; all give the same bits)\n"
            << "attention      " << attention_kernel_name()
            << " kernel (q.k and a.v: the fastest here; all give the same bits)\n"
            << "compute types  " << compute_types_on_this_cpu(*model) << "\n";
  return 0;
}

struct InfoArgs {
  std::string model, compute_type;  // "": the model file's (see --compute-type)
};

void add_info_options(CLI::App& command, InfoArgs& args) {
  command.description("describe a model and the BLAS kernels in use");
  add_model_option(command, args.model);
  add_compute_type_option(command, args.compute_type);
}

}  // namespace

Command add_info(CLI::App& app) {
  return add_command<InfoArgs>(app, "info", add_info_options, [](const InfoArgs& args) {
    return run_info(args.model, args.compute_type);
  });
}

}  // namespace minimt::cli
