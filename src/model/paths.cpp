#include "minimt/model/paths.h"

#include <sys/stat.h>

#include <sstream>

namespace minimt {

bool is_safe_relative_path(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (part == "..") return false;
  return true;
}

std::string join_path(const std::string& dir, const std::string& relative) {
  if (dir.empty()) return relative;
  return dir.back() == '/' ? dir + relative : dir + "/" + relative;
}

long long file_size(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return -1;
  return static_cast<long long>(info.st_size);
}

}  // namespace minimt
