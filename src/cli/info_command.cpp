// minimt info: the model's configuration and files, and the BLAS kernels in use.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/app/views/model_info.h"

namespace minimt::cli {
namespace {

int run_info(const std::string& model_option, const std::string& compute_type) {
  auto model = load_model(model_option, compute_type);
  const char* core_type = std::getenv("OPENBLAS_CORETYPE");
  for (const auto& [label, text] : model_info(*model, core_type ? core_type : ""))
    std::cout << label << std::string(label.size() < 15 ? 15 - label.size() : 1, ' ') << text
              << "\n";
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
