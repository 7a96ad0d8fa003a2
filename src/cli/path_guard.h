// PathGuard: refuses a command line whose outputs would overwrite one of its inputs or each
// other, before anything is opened for writing. Two paths are the same file when they resolve
// to it through any links: same device and inode when it exists, same real directory and name
// when it does not yet. Standard output is an output like the others (given as "-", or by
// default): two outputs on one stream (--dump-attention /dev/stdout beside the translations, two
// on one terminal or pipe) are refused too. /dev/null may take several outputs; inputs that are
// not regular files (a terminal, a pipe) are not compared.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace minimt::cli {

// A command line that cannot run as given: main.cpp reports it on one line, exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PathGuard {
 public:
  // `option` names where the path came from in messages: "-i", "--view", "the model file".
  void input(const std::string& option, const std::string& path);
  // An input already open as `fd` (standard input too, when a file is redirected to it).
  void input(const std::string& option, const std::string& path, int fd);
  void output(const std::string& option, const std::string& path);
  // Standard output taken by `option` ("-o" given "-" or not given: "").
  void standard_output(const std::string& option, const std::string& path);
  // Throws UsageError "OUT PATH and IN PATH are the same file: ..." for the first collision.
  void check() const;

 private:
  struct Entry {
    std::string option, path;
    bool output = false;
    std::string identity;  // "dev:ino" or "name:/real/dir/file"; empty: not compared
    bool stream = false;   // not a regular file: compared with outputs only
  };
  std::vector<Entry> entries_;
};

}  // namespace minimt::cli
