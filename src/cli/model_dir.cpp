// --model, and the environment app's model search reads (model_search.h):
// $MINIMT_MODEL, $MINIMT_MODEL_PATH, $MINIMT_KERNELS, $XDG_DATA_HOME, $HOME and where this
// executable lives.
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/option_parsing.h"
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

const ModelEnvironment& model_environment() {
  // A build tree (CMake's cache beside the executable) takes its models from the source tree's
  // models/; an installed minimt from PREFIX/share/minimt/models.
  static const ModelEnvironment env = read_model_environment(
      executable_dir(), file_size(executable_dir() + "/CMakeCache.txt") >= 0);
  return env;
}

void add_model_option(CLI::App& command, std::string& target) {
  command
      .add_option("-m,--model", target,
                  "model directory, or the name of one along $MINIMT_MODEL_PATH, "
                  "~/.local/share/minimt/models and the installed models (minimt models lists "
                  "them; default: $MINIMT_MODEL, else the shipped en-fr)")
      ->check(non_empty_path())
      ->type_name("DIR|NAME");
}

std::string resolve_model_dir(const std::string& option) {
  return minimt::resolve_model_dir(option, model_environment());
}

}  // namespace minimt::cli
