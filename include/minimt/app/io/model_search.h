// Which model directory a front end's model argument names, and loading it: a path as given, or a
// name looked up along the model search path; without one, $MINIMT_MODEL, else the shipped
// models/en-fr next to the build or install tree. The front end says where its program lives
// and reads the environment (read_model_environment), once; the search reads only that.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minimt/model/model.h"

namespace minimt {

// What the front end read: the variables (each "" when unset) and its program's folder (the
// executable's, or the Python module's), whose tree says where the shipped models are.
struct ModelEnvironment {
  std::string minimt_model;       // $MINIMT_MODEL: the model when none is named
  std::string minimt_model_path;  // $MINIMT_MODEL_PATH: folders of models, colon-separated
  std::string minimt_kernels;     // $MINIMT_KERNELS: avx512, avx2, generic, openblas or auto
  std::string xdg_data_home, home;
  std::string program_dir;
  // Whether program_dir is a build tree (its models are the source tree's models/); else an
  // installed tree (PREFIX/bin or PREFIX/lib/...: PREFIX/share/minimt/models).
  bool build_tree = false;
  // The models folder of the prefix this build was configured for; "": PREFIX/share/minimt/models
  // as CMake's install prefix says.
  std::string installed_models;
};

// The variables above read from this process's environment (io is the room that reads the
// process's outside: descriptors and the environment; a front end calls this), with the
// program's folder and whether it is a build tree as the front end knows them.
ModelEnvironment read_model_environment(const std::string& program_dir, bool build_tree);

// A folder that holds models, one directory each, and why it is searched: "MINIMT_MODEL_PATH",
// "user models", "installed" or "build tree".
struct ModelFolder {
  std::string path;
  std::string origin;
};

// The folders a model name is looked up in, in order: each of $MINIMT_MODEL_PATH, then
// ~/.local/share/minimt/models ($XDG_DATA_HOME/minimt/models when set), then the installed
// models: the source tree's models/ for a build tree, PREFIX/share/minimt/models for an installed
// one, and those of the prefix minimt was built for. Each folder once; relative entries left out.
std::vector<ModelFolder> model_search_path(const ModelEnvironment& env);
// True when `word` is a model name rather than a path: no '/' and no directory of that name here.
bool is_model_name(const std::string& word);
// FOLDER/NAME for the first folder holding NAME/config.json; throws Error naming every folder
// looked in.
std::string find_model(const std::string& name, const ModelEnvironment& env);
// The shipped en-fr next to the build or install tree, or in the prefix minimt was built for.
std::string default_model_dir(const ModelEnvironment& env);
// `argument` (a path or a name), else $MINIMT_MODEL (said so in an error), else the default.
std::string resolve_model_dir(const std::string& argument, const ModelEnvironment& env);

// Loads that model with the kernel $MINIMT_KERNELS asks for ("" or "auto": the fastest this CPU
// runs); compute_type is float32, int8, bf16 or "" for the file's. Throws Error naming
// MINIMT_KERNELS or `compute_type_name` (how the front end spells the option) when this CPU
// cannot run what they ask for.
std::shared_ptr<const Model> load_model(const std::string& argument,
                                        const std::string& compute_type,
                                        const ModelEnvironment& env,
                                        const std::string& compute_type_name = "--compute-type");

}  // namespace minimt
