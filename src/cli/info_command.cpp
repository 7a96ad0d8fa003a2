// minimt info: the model's configuration and files, and the BLAS kernels in use.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/model/model.h"

namespace minimt::cli {
namespace {

// The kernels MINIMT_KERNELS may choose on this CPU, the default first.
std::string kernels_on_this_cpu() {
  std::string list = to_string(best_linear_kernel()) + " (default)";
  for (LinearKernel kernel : {LinearKernel::kAvx512, LinearKernel::kAvx2, LinearKernel::kGeneric,
                              LinearKernel::kOpenblas})
    if (kernel != best_linear_kernel() && linear_kernel_supported(kernel))
      list += ", " + to_string(kernel);
  return list + " (MINIMT_KERNELS)";
}

int run_info(const std::string& model_option) {
  auto model = load_model(model_option);
  const ModelConfig& c = model->config();
  std::cout << "model          " << model->directory() << "\n"
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
  for (const auto& file : model->files())
    std::cout << "file           " << file.path << " (" << human_size(file.bytes) << ")\n";
  const char* core_type = std::getenv("OPENBLAS_CORETYPE");
  std::cout << "blas core      " << blas_core_name()
            << (core_type ? std::string(" (OPENBLAS_CORETYPE=") + core_type + ")"
                          : std::string(" (detected by OpenBLAS)"))
            << "\n"
            << "blas threads   " << blas_threads() << " per matrix product\n"
            << "linear layers  "
            << (model->packed_bytes()
                    ? "minimt's " + to_string(model->linear_kernel()) +
                          " kernel on packed weights (" +
                          human_size(static_cast<long long>(model->packed_bytes())) + ")"
                    : std::string("OpenBLAS"))
            << "\n"
            << "kernels here   " << kernels_on_this_cpu() << "\n";
  return 0;
}

}  // namespace

Command add_info(CLI::App& app) {
  auto model = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand("info", "describe a model and the BLAS kernels in use");
  add_model_option(*command, *model);
  return {command, [model] { return run_info(*model); }};
}

}  // namespace minimt::cli
