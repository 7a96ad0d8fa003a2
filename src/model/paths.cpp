#include "minimt/model/paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "minimt/base/error.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {
namespace {

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a file";
}

// realpath(3) as a string; "" and errno set when it fails.
std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) ? std::string(buffer) : std::string();
}

// The directory itself counts as inside: the regular-file check refuses it.
bool is_inside(const std::string& real, const std::string& root) {
  if (root == "/" || real == root) return true;
  return real.size() > root.size() && real.compare(0, root.size(), root) == 0 &&
         real[root.size()] == '/';
}

std::string mebibytes(size_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) + " MiB)";
}

}  // namespace

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

std::string model_file(const std::string& dir, const std::string& relative,
                       const std::string& named_by) {
  const std::string path = join_path(dir, relative);
  const std::string note = named_by.empty() ? "" : " (named by " + named_by + ")";
  const std::string real = real_path(path);
  if (real.empty()) {
    if (errno == ENOENT || errno == ENOTDIR) throw ModelError(path, "is missing" + note);
    throw ModelError(path, std::string("cannot be resolved: ") + std::strerror(errno) + note);
  }
  const std::string root = real_path(dir);
  if (root.empty())
    throw ModelError(dir, std::string("cannot be resolved: ") + std::strerror(errno));
  if (!is_inside(real, root))
    throw ModelError(path,
                     "resolves outside the model directory (" + printable(real, 200) + ")" + note);
  struct stat info {};
  if (::stat(real.c_str(), &info) != 0)
    throw ModelError(path, std::string("cannot be read: ") + std::strerror(errno) + note);
  if (!S_ISREG(info.st_mode))
    throw ModelError(path,
                     std::string("is not a regular file (") + file_kind(info.st_mode) + ")" + note);
  return path;
}

std::string read_regular_file(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw ModelError(path, "is missing");
    throw ModelError(path, std::string("cannot open the file: ") + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw ModelError(path, std::string("is not a regular file (") + file_kind(info.st_mode) + ")");
  }
  if (static_cast<unsigned long long>(info.st_size) > max_bytes) {
    ::close(fd);
    throw ModelError(path, "is " + std::to_string(info.st_size) + " bytes, more than the " +
                               mebibytes(max_bytes) + " minimt reads");
  }
  std::string bytes(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(fd, &bytes[done], bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int error = errno;
      ::close(fd);
      throw ModelError(path, std::string("cannot read the file: ") + std::strerror(error));
    }
    if (got == 0) break;  // the file shrank: parse what is there
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace minimt
