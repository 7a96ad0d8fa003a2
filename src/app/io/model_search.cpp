// Model names, the search path and loading (model_search.h).
#include "minimt/app/io/model_search.h"

#include <sys/stat.h>

#include <cstdlib>

#include "minimt/base/error.h"
#include "minimt/engine/kernel_registry.h"
#include "minimt/model/paths.h"

#ifndef MINIMT_INSTALLED_MODELS
#define MINIMT_INSTALLED_MODELS "/usr/local/share/minimt/models"
#endif

namespace minimt {
namespace {

std::string installed_models(const ModelEnvironment& env) {
  return env.installed_models.empty() ? MINIMT_INSTALLED_MODELS : env.installed_models;
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

// "~/.local/share/minimt/models", or under $XDG_DATA_HOME when that is set (and absolute).
std::string user_models_dir(const ModelEnvironment& env) {
  if (!env.xdg_data_home.empty() && env.xdg_data_home[0] == '/')
    return env.xdg_data_home + "/minimt/models";
  if (env.home.empty()) return "";
  return env.home + "/.local/share/minimt/models";
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

// A path as given, or a name to look up.
std::string model_argument(const std::string& word, const ModelEnvironment& env) {
  return is_model_name(word) ? find_model(word, env) : word;
}

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

ModelEnvironment read_model_environment(const std::string& program_dir, bool build_tree) {
  ModelEnvironment env;
  env.minimt_model = variable("MINIMT_MODEL");
  env.minimt_model_path = variable("MINIMT_MODEL_PATH");
  env.minimt_kernels = variable("MINIMT_KERNELS");
  env.xdg_data_home = variable("XDG_DATA_HOME");
  env.home = variable("HOME");
  env.program_dir = program_dir;
  env.build_tree = build_tree;
  return env;
}

std::vector<ModelFolder> model_search_path(const ModelEnvironment& env) {
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
  const std::string& list = env.minimt_model_path;
  for (size_t start = 0; !list.empty() && start <= list.size();) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    add(list.substr(start, colon - start), "MINIMT_MODEL_PATH");
    start = colon + 1;
  }
  add(user_models_dir(env), "user models");
  const std::string prefix = parent_dir(env.program_dir);
  if (env.build_tree)
    add(prefix + "/models", "build tree");
  else
    add(prefix + "/share/minimt/models", "installed");
  add(installed_models(env), "installed");
  return folders;
}

bool is_model_name(const std::string& word) {
  return !word.empty() && word.find('/') == std::string::npos && word != "." && word != ".." &&
         !is_directory(word);
}

std::string find_model(const std::string& name, const ModelEnvironment& env) {
  const std::vector<ModelFolder> folders = model_search_path(env);
  for (const ModelFolder& folder : folders) {
    const std::string candidate = folder.path + "/" + name;
    if (file_size(candidate + "/config.json") >= 0) return candidate;
  }
  throw Error("no model named '" + name + "': looked for " + name + "/config.json in " +
              places_looked(folders) + "; 'minimt models' lists the models found");
}

std::string default_model_dir(const ModelEnvironment& env) {
  const std::string prefix = parent_dir(env.program_dir);
  for (const std::string& candidate :
       {prefix + "/models/en-fr", prefix + "/share/minimt/models/en-fr",
        installed_models(env) + "/en-fr"}) {
    // Shown in messages and dumps: say /repo/models/en-fr rather than /repo/build/../models/en-fr.
    if (file_size(candidate + "/config.json") >= 0) return real_or_same(candidate);
  }
  return env.program_dir + "/../models/en-fr";
}

std::string resolve_model_dir(const std::string& argument, const ModelEnvironment& env) {
  if (!argument.empty()) return model_argument(argument, env);
  if (!env.minimt_model.empty()) {
    try {
      return model_argument(env.minimt_model, env);
    } catch (const Error& e) {
      throw Error("MINIMT_MODEL=" + env.minimt_model + ": " + e.what());
    }
  }
  return default_model_dir(env);
}

std::shared_ptr<const Model> load_model(const std::string& argument,
                                        const std::string& compute_type,
                                        const ModelEnvironment& env,
                                        const std::string& compute_type_name) {
  LoadOptions options;
  try {
    options.kernel = choose_linear_kernel(env.minimt_kernels);
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
      throw Error(compute_type_name + " " + compute_type + ": " + reason);
  }
  return Model::load(resolve_model_dir(argument, env), options);
}

}  // namespace minimt
