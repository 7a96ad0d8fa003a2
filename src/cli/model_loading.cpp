// load_model (commands.h): the model --model names, with the kernel $MINIMT_KERNELS asks for
// and the compute type --compute-type asks for (app's load_model), its warnings on stderr.
#include <iostream>
#include <string>

#include "cli/commands.h"

namespace minimt::cli {

std::shared_ptr<const Model> load_model(const std::string& option,
                                        const std::string& compute_type) {
  auto model = minimt::load_model(option, compute_type, model_environment());
  for (const std::string& warning : model->config().warnings)
    std::cerr << "minimt: warning: " << warning << "\n";
  return model;
}

}  // namespace minimt::cli
