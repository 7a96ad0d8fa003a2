// minimt convert: a model directory rewritten with its Linear weights in int8 (a quarter of the
// float32 bytes; translate --compute-type int8 then packs them as they are) or in float32.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "minimt/app/io/output_file.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"
#include "minimt/model/model.h"
#include "minimt/model/model_converter.h"

namespace minimt::cli {
namespace {

struct ConvertArgs {
  std::string compute_type;
  std::string in, out;
};

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer)) throw IoError(path + ": " + std::strerror(errno));
  return buffer;
}

// OUT as it will resolve once created: its real parent directory and its name.
std::string real_out_path(const std::string& out) {
  std::filesystem::path path(out);
  if (path.filename().empty()) path = path.parent_path();  // "dir/" names "dir"
  const std::string parent = path.has_parent_path() ? path.parent_path().string() : ".";
  return real_path(parent) + "/" + path.filename().string();
}

bool inside(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

// OUT must not be IN, inside it or around it, and must not exist or be an empty directory.
void check_paths(const std::string& in, const std::string& out) {
  struct stat info {};
  const bool exists = ::lstat(out.c_str(), &info) == 0;
  const std::string real_in = real_path(in);
  const std::string real_out = exists ? real_path(out) : real_out_path(out);
  if (real_out == real_in || inside(real_out, real_in) || inside(real_in, real_out))
    throw UsageError("OUT " + out + " and IN " + in + " overlap (" + real_out + ", " + real_in +
                     "): convert writes a new directory");
  if (exists && (!S_ISDIR(info.st_mode) || !std::filesystem::is_empty(out)))
    throw UsageError("OUT " + out + " exists and is not an empty directory");
}

// A fresh directory next to OUT (same file system, so that rename() moves it into place).
std::string temporary_next_to(const std::string& out) {
  const std::string resolved = real_out_path(out);
  const size_t slash = resolved.rfind('/');
  std::string pattern =
      resolved.substr(0, slash + 1) + "." + resolved.substr(slash + 1) + ".partial-XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw IoError(out + ": cannot create a directory next to it: " + std::strerror(errno));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(pattern.c_str(), 0777 & ~mask);  // mkdtemp makes it 0700
  return pattern;
}

int run_convert(const ConvertArgs& args) {
  const std::string in = resolve_model_dir(args.in);
  check_paths(in, args.out);
  const ComputeType target = parse_compute_type(args.compute_type);
  std::string temporary;
  int slot;
  {
    const SignalsHeld held;  // an interrupt between the two would leave the folder behind
    temporary = temporary_next_to(args.out);
    // An interrupt removes it too (it holds only files).
    slot = remember_temporary(temporary, true);
  }
  ConversionSummary summary;
  try {
    summary = convert_model(in, temporary, target);
    Model::load(temporary);     // what was written reads back
    ::rmdir(args.out.c_str());  // an empty OUT, replaced by the new directory
    if (::rename(temporary.c_str(), args.out.c_str()) != 0)
      throw IoError(args.out + ": cannot move the new model into place: " + std::strerror(errno));
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(temporary, ignored);
    forget_temporary(slot);
    throw;
  }
  forget_temporary(slot);
  std::cerr << "minimt: wrote " << visible_text(args.out) << ": " << summary.linear_layers
            << " Linear weights as " << args.compute_type << " ("
            << human_size(static_cast<long long>(summary.linear_float_bytes)) << " as float32, "
            << human_size(static_cast<long long>(summary.linear_bytes_out)) << " now); weights "
            << human_size(static_cast<long long>(summary.weights_bytes_in)) << " -> "
            << human_size(static_cast<long long>(summary.weights_bytes_out)) << "\n";
  return 0;
}

void add_convert_options(CLI::App& command, ConvertArgs& args) {
  command.description("write a copy of a model with its Linear weights in int8 (or float32)");
  command
      .add_option("--compute-type", args.compute_type,
                  "int8: weights quantized per output row, a quarter of float32; float32: "
                  "as floats (an int8 model dequantized)")
      ->type_name("TYPE")
      ->check(CLI::IsMember({"int8", "float32"}))
      ->required();
  command.add_option("in", args.in, "the model to read: a directory or a model name")
      ->check(non_empty_path())
      ->type_name("IN")
      ->required();
  command.add_option("out", args.out, "the directory to write (absent or empty)")
      ->check(non_empty_path())
      ->type_name("OUT")
      ->required();
}

}  // namespace

Command add_convert(CLI::App& app) {
  return add_command<ConvertArgs>(app, "convert", add_convert_options, run_convert);
}

}  // namespace minimt::cli
