// minimt models: the models --model NAME can find, folder by folder along the search path, each
// with its architecture in one line (from config.json alone: no weights are read).
#include <dirent.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include "cli/commands.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"
#include "minimt/model/config.h"
#include "minimt/model/paths.h"

namespace minimt::cli {
namespace {

struct ModelsArgs {
  bool names = false;
  bool path = false;
};

struct FoundModel {
  std::string name;
  std::string dir;
  std::string summary;
};

// The subdirectories of `folder` holding a config.json, by name; none when it cannot be read.
std::vector<std::string> model_names_in(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = opendir(folder.c_str());
  if (!dir) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.empty() || name[0] == '.') continue;
    if (file_size(folder + "/" + name + "/config.json") >= 0) names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// "encoder-decoder Transformer, 3 + 3 layers, post-norm, d_model 192, 4 heads, vocabulary
// 800/1200", as info's first lines say it; or why config.json cannot be read.
std::string summary_of(const std::string& dir) {
  try {
    const ModelConfig c = ModelConfig::load(model_file(dir, "config.json", ""));
    return "encoder-decoder Transformer, " + std::to_string(c.encoder_layers) + " + " +
           std::to_string(c.decoder_layers) + " layers, " + to_string(c.norm_position) +
           "-norm, d_model " + std::to_string(c.d_model) + ", " + std::to_string(c.num_heads) +
           " heads, vocabulary " + std::to_string(c.source_vocab_size) + "/" +
           std::to_string(c.target_vocab_size);
  } catch (const Error& e) {
    return std::string("unreadable: ") + e.what();
  }
}

// Every model along the search path in order; a name found again later is marked hidden.
std::vector<FoundModel> find_models(const std::vector<ModelFolder>& folders) {
  std::vector<FoundModel> found;
  std::set<std::string> seen;
  for (const ModelFolder& folder : folders)
    for (const std::string& name : model_names_in(folder.path)) {
      const std::string dir = folder.path + "/" + name;
      std::string summary = summary_of(dir);
      if (!seen.insert(name).second)
        summary += " (hidden: --model " + name + " finds the one above)";
      found.push_back({name, dir, summary});
    }
  return found;
}

std::string folder_state(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  const int error = errno;
  if (dir) {
    closedir(dir);
    return "";
  }
  if (error == ENOENT) return " (missing)";
  return error == ENOTDIR ? " (not a directory)" : " (unreadable)";
}

std::string padded(const std::string& text, size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

// The model runs without --model use, to mark it; "" when that resolves to nothing.
std::string default_model_real_path() {
  try {
    std::string dir = resolve_model_dir("");
    char* real = realpath(dir.c_str(), nullptr);
    if (!real) return "";
    dir = real;
    std::free(real);
    return dir;
  } catch (const Error&) {
    return "";
  }
}

bool same_dir(const std::string& dir, const std::string& real_target) {
  if (real_target.empty()) return false;
  char* real = realpath(dir.c_str(), nullptr);
  if (!real) return false;
  const bool same = real_target == real;
  std::free(real);
  return same;
}

int run_models(const ModelsArgs& args) {
  // Folder names and config strings come from the file system: printed through visible_text.
  const std::vector<ModelFolder> folders = model_search_path(model_environment());
  if (args.path) {
    for (const ModelFolder& folder : folders)
      std::cout << visible_text(folder.path) << "\t" << folder.origin << folder_state(folder.path)
                << "\n";
    return 0;
  }
  const std::vector<FoundModel> models = find_models(folders);
  if (args.names) {
    std::set<std::string> printed;
    for (const FoundModel& model : models)
      if (printed.insert(model.name).second) std::cout << visible_text(model.name) << "\n";
    return 0;
  }
  size_t name_width = 0, dir_width = 0;
  for (const FoundModel& model : models) {
    name_width = std::max(name_width, visible_text(model.name).size());
    dir_width = std::max(dir_width, visible_text(model.dir).size());
  }
  const std::string default_dir = default_model_real_path();
  for (const FoundModel& model : models)
    std::cout << padded(visible_text(model.name), name_width + 2)
              << padded(visible_text(model.dir), dir_width + 2) << visible_text(model.summary)
              << (same_dir(model.dir, default_dir) ? " (default)" : "") << "\n";
  if (models.empty()) {
    std::string list;
    for (const ModelFolder& folder : folders) list += (list.empty() ? "" : ", ") + folder.path;
    std::cerr << "minimt: no models in " << (list.empty() ? "any folder" : visible_text(list))
              << " (a model is a directory holding config.json)\n";
  }
  return 0;
}

void add_models_options(CLI::App& command, ModelsArgs& args) {
  command.description(
      "list the models --model NAME finds: in $MINIMT_MODEL_PATH (colon-separated folders), "
      "~/.local/share/minimt/models, then the installed models; the first of a name wins");
  auto* names = command.add_flag(
      "--names", args.names, "print only the names, one per line (for scripts and completions)");
  command
      .add_flag("--path", args.path,
                "print the folders searched, in order, each with why it is searched")
      ->excludes(names);
}

}  // namespace

Command add_models(CLI::App& app) {
  return add_command<ModelsArgs>(app, "models", add_models_options, run_models);
}

}  // namespace minimt::cli
