// Which model directory --model, $MINIMT_MODEL or the default names: a path as given, or a
// name looked up along the model search path, and the default model next to the executable.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/base/error.h"
#include "minimt/model/paths.h"

#ifndef MINIMT_INSTALLED_MODELS
#define MINIMT_INSTALLED_MODELS "/usr/local/share/minimt/models"
#endif

namespace minimt::cli {
namespace {

std::string executable_dir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n <= 0) return ".";
  std::string path(buffer, n);
  return path.substr(0, path.find_last_of('/'));
}

std::string parent_dir(const std::string& dir) {
  const size_t slash = dir.find_last_of('/');
  if (slash == std::string::npos) return dir + "/..";
  return slash == 0 ? "/" : dir.substr(0, slash);
}

// The path with every link followed, or the path itself when it does not resolve.
std::string real_or_same(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (!real) return path;
  std::string result = real;
  std::free(real);
  return result;
}

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A build tree (CMake's cache beside the executable) takes its models from the source tree's
// models/; an installed minimt from PREFIX/share/minimt/models.
bool in_build_tree(const std::string& exe_dir) {
  return file_size(exe_dir + "/CMakeCache.txt") >= 0;
}

// "~/.local/share/minimt/models", or under $XDG_DATA_HOME when that is set (and absolute).
std::string user_models_dir() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data && data[0] == '/') return std::string(data) + "/minimt/models";
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  return std::string(home) + "/.local/share/minimt/models";
}

std::string strip_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string places_looked(const std::vector<ModelFolder>& folders) {
  std::string list;
  for (const ModelFolder& folder : folders)
    list += (list.empty() ? "" : ", ") + folder.path + " (" + folder.origin + ")";
  return list.empty() ? "no folder (MINIMT_MODEL_PATH and HOME unset)" : list;
}

// `word` from --model or $MINIMT_MODEL: a directory path as given, or a name to look up.
std::string model_argument(const std::string& word) {
  return is_model_name(word) ? find_model(word) : word;
}

}  // namespace

void add_model_option(CLI::App& command, std::string& target) {
  command
      .add_option("-m,--model", target,
                  "model directory, or the name of one along $MINIMT_MODEL_PATH, "
                  "~/.local/share/minimt/models and the installed models (minimt models lists "
                  "them; default: $MINIMT_MODEL, else the shipped en-fr)")
      ->check(non_empty_path())
      ->type_name("DIR|NAME");
}

std::vector<ModelFolder> model_search_path() {
  std::vector<ModelFolder> folders;
  std::vector<std::string> real_paths;  // a folder reached twice (a link, a prefix) is one place
  auto add = [&](const std::string& path, const std::string& origin) {
    // An empty or relative entry (in MINIMT_MODEL_PATH, or a relative HOME) would search the
    // folder minimt runs in: left out, as the XDG base directory rules leave them out.
    if (path.empty() || path[0] != '/') return;
    const std::string clean = strip_trailing_slashes(path);
    const std::string real = real_or_same(clean);
    for (const std::string& seen : real_paths)
      if (seen == real) return;
    real_paths.push_back(real);
    folders.push_back({clean, origin});
  };
  if (const char* list = std::getenv("MINIMT_MODEL_PATH")) {
    const std::string text = list;
    size_t start = 0;
    while (start <= text.size()) {
      size_t colon = text.find(':', start);
      if (colon == std::string::npos) colon = text.size();
      add(text.substr(start, colon - start), "MINIMT_MODEL_PATH");
      start = colon + 1;
    }
  }
  add(user_models_dir(), "user models");
  const std::string exe = executable_dir();
  const std::string prefix = parent_dir(exe);
  if (in_build_tree(exe))
    add(prefix + "/models", "build tree");
  else
    add(prefix + "/share/minimt/models", "installed");
  add(MINIMT_INSTALLED_MODELS, "installed");
  return folders;
}

bool is_model_name(const std::string& word) {
  return !word.empty() && word.find('/') == std::string::npos && word != "." && word != ".." &&
         !is_directory(word);
}

std::string find_model(const std::string& name) {
  const std::vector<ModelFolder> folders = model_search_path();
  for (const ModelFolder& folder : folders) {
    const std::string candidate = folder.path + "/" + name;
    if (file_size(candidate + "/config.json") >= 0) return candidate;
  }
  throw Error("no model named '" + name + "': looked for " + name + "/config.json in " +
              places_looked(folders) + "; 'minimt models' lists the models found");
}

std::string default_model_dir() {
  const std::string exe = executable_dir();
  const std::string prefix = parent_dir(exe);
  for (const std::string& candidate :
       {prefix + "/models/en-fr", prefix + "/share/minimt/models/en-fr",
        std::string(MINIMT_INSTALLED_MODELS) + "/en-fr"}) {
    // Shown in messages and dumps: say /repo/models/en-fr rather than /repo/build/../models/en-fr.
    if (file_size(candidate + "/config.json") >= 0) return real_or_same(candidate);
  }
  return exe + "/../models/en-fr";
}

std::string resolve_model_dir(const std::string& option) {
  if (!option.empty()) return model_argument(option);
  if (const char* env = std::getenv("MINIMT_MODEL"); env && *env) {
    try {
      return model_argument(env);
    } catch (const Error& e) {
      throw Error(std::string("MINIMT_MODEL=") + env + ": " + e.what());
    }
  }
  return default_model_dir();
}

}  // namespace minimt::cli
