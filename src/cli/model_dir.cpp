#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdlib>

#include "cli/commands.h"
#include "minimt/base/error.h"
#include "minimt/model/paths.h"

namespace minimt::cli {
namespace {

std::string executable_dir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, n);
  return path.substr(0, path.find_last_of('/'));
}

}  // namespace

void add_model_option(CLI::App& command, std::string& target) {
  command.add_option("-m,--model", target,
                     "model directory (default: $MINIMT_MODEL, else the shipped models/en-fr)");
}

std::string resolve_model_dir(const std::string& option) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("MINIMT_MODEL"); env && *env) return env;
  const std::string exe = executable_dir();
  for (const char* relative : {"/../models/en-fr", "/../share/minimt/models/en-fr"}) {
    std::string candidate = exe + relative;
    if (file_size(candidate + "/config.json") < 0) continue;
    // Shown in messages and dumps: say /repo/models/en-fr rather than /repo/build/../models/en-fr.
    if (char* real = realpath(candidate.c_str(), nullptr)) {
      candidate = real;
      std::free(real);
    }
    return candidate;
  }
  return exe + "/../models/en-fr";
}

std::shared_ptr<const Model> load_model(const std::string& option) {
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
  return Model::load(resolve_model_dir(option), options);
}

}  // namespace minimt::cli
