// load_model (commands.h): the model --model names, with the kernel $MINIMT_KERNELS asks for
// and the compute type --compute-type asks for, each refused when this CPU cannot run it.
#include <cstdlib>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "minimt/base/error.h"

namespace minimt::cli {

std::shared_ptr<const Model> load_model(const std::string& option,
                                        const std::string& compute_type) {
  const char* word = std::getenv("MINIMT_KERNELS");
  LoadOptions options;
  try {
    options.kernel = choose_linear_kernel(word ? word : "");
  } catch (const Error& e) {
    throw Error(std::string("MINIMT_KERNELS: ") + e.what());
  }
  if (!linear_kernel_supported(options.kernel))
    throw Error("MINIMT_KERNELS=" + to_string(options.kernel) + ": the " +
                to_string(options.kernel) + " kernel does not run on this CPU (it runs " +
                to_string(best_linear_kernel()) + ")");
  options.int8_kernel = int8_kernel_matching(options.kernel);
  if (!compute_type.empty()) {
    options.compute_type = parse_compute_type(compute_type);
    if (const std::string reason = compute_type_unsupported_reason(*options.compute_type);
        !reason.empty())
      throw Error("--compute-type " + compute_type + ": " + reason);
  }
  auto model = Model::load(resolve_model_dir(option), options);
  for (const std::string& warning : model->config().warnings)
    std::cerr << "minimt: warning: " << warning << "\n";
  return model;
}

}  // namespace minimt::cli
