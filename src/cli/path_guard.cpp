#include "cli/path_guard.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "minimt/app/io/output_file.h"

namespace minimt::cli {
namespace {

bool is_dev_null(const struct stat& st) {
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

std::string identity_of(const struct stat& st) {
  if (is_dev_null(st) || S_ISDIR(st.st_mode)) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

// The file a path names, or would name once created.
std::string identity_of(const std::string& path, bool& stream) {
  if (path.empty() || path == "-") return "";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    stream = !S_ISREG(st.st_mode);
    return identity_of(st);
  }
  const std::string target = output_target(path);  // a dangling link names its target
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  char real[PATH_MAX];
  if (!::realpath(dir.c_str(), real)) return "";  // opening it will fail and say why
  return std::string("name:") + real + "/" + target.substr(slash + 1);
}

}  // namespace

void PathGuard::input(const std::string& option, const std::string& path) {
  Entry entry{option, path, false, "", false};
  entry.identity = identity_of(path, entry.stream);
  entries_.push_back(entry);
}

void PathGuard::input(const std::string& option, const std::string& path, int fd) {
  struct stat st;
  const bool known = ::fstat(fd, &st) == 0;
  entries_.push_back(
      {option, path, false, known ? identity_of(st) : "", known && !S_ISREG(st.st_mode)});
}

void PathGuard::output(const std::string& option, const std::string& path) {
  Entry entry{option, path, true, "", false};
  entry.identity = identity_of(path, entry.stream);
  entries_.push_back(entry);
}

void PathGuard::standard_output(const std::string& option, const std::string& path) {
  struct stat st;
  const bool known = ::fstat(STDOUT_FILENO, &st) == 0;
  entries_.push_back({path.empty() ? "standard output" : option, path, true,
                      known ? identity_of(st) : "stdout", known && !S_ISREG(st.st_mode)});
}

void PathGuard::check() const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& out = entries_[i];
    if (!out.output || out.identity.empty()) continue;
    for (size_t j = 0; j < entries_.size(); ++j) {
      const Entry& other = entries_[j];
      if (j == i || other.identity != out.identity || (other.output && j > i)) continue;
      if (!other.output && other.stream) continue;  // reading a terminal, writing to it
      auto named = [](const Entry& e) { return e.option + (e.path.empty() ? "" : " " + e.path); };
      if (out.stream)  // a terminal, a pipe: two outputs would interleave there
        throw UsageError(named(out) + " and " + named(other) +
                         " are the same stream: two outputs cannot share one");
      throw UsageError(named(out) + " and " + named(other) + " are the same file: " +
                       (other.output ? "two outputs cannot share a file"
                                     : "an output must not overwrite an input"));
    }
  }
}

}  // namespace minimt::cli
