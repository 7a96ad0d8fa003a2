#include "cli/path_guard.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "minimt/app/output_file.h"

namespace minimt::cli {
namespace {

std::string identity_of(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

// The file a path names, or would name once created.
std::string identity_of(const std::string& path) {
  if (path.empty() || path == "-") return "";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return identity_of(st);
  const std::string target = output_target(path);  // a dangling link names its target
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  char real[PATH_MAX];
  if (!::realpath(dir.c_str(), real)) return "";  // opening it will fail and say why
  return std::string("name:") + real + "/" + target.substr(slash + 1);
}

}  // namespace

void PathGuard::input(const std::string& option, const std::string& path) {
  entries_.push_back({option, path, false, identity_of(path)});
}

void PathGuard::input(const std::string& option, const std::string& path, int fd) {
  struct stat st;
  entries_.push_back({option, path, false, ::fstat(fd, &st) == 0 ? identity_of(st) : ""});
}

void PathGuard::output(const std::string& option, const std::string& path) {
  entries_.push_back({option, path, true, identity_of(path)});
}

void PathGuard::check() const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& out = entries_[i];
    if (!out.output || out.identity.empty()) continue;
    for (size_t j = 0; j < entries_.size(); ++j) {
      const Entry& other = entries_[j];
      if (j == i || other.identity != out.identity || (other.output && j > i)) continue;
      auto named = [](const Entry& e) { return e.option + (e.path.empty() ? "" : " " + e.path); };
      throw UsageError(named(out) + " and " + named(other) + " are the same file: " +
                       (other.output ? "two outputs cannot share a file"
                                     : "an output must not overwrite an input"));
    }
  }
}

}  // namespace minimt::cli
