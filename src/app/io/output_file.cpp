#include "minimt/app/io/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <random>

#include "minimt/base/error.h"

namespace minimt {
namespace {

// Temporary files not yet renamed, removed by the handler of every signal that ends a run by
// default and can be caught, so that an interrupted run leaves no debris (SIGKILL cannot be
// caught: its debris is a hidden file beside the untouched original; SIGXFSZ is ignored, so the
// write fails and is reported; a crash's SIGSEGV or SIGABRT is left alone). Fixed slots: a
// signal handler may not allocate.
constexpr int kEndingSignals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,   SIGPIPE, SIGALRM,
                                  SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF};
constexpr int kSlots = 16;
char g_temporary[kSlots][PATH_MAX];
std::atomic<bool> g_used[kSlots];
std::atomic<bool> g_folder[kSlots];  // a folder of files (convert's), not a file

// Removes a folder and what it holds (tokenizers may lie in subfolders, up to 8 deep), with calls
// a signal handler may make: getdents64 and unlinkat rather than opendir, which allocates.
void remove_folder(int parent, const char* path, int depth) {
  const int fd = ::openat(parent, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char entries[2048];
    long n;
    while ((n = ::syscall(SYS_getdents64, fd, entries, sizeof entries)) > 0)
      for (long at = 0; at < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(entries + at);
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0 &&
            ::unlinkat(fd, name, 0) != 0 && errno == EISDIR && depth < 8)
          remove_folder(fd, name, depth + 1);
        at += entry->d_reclen;
      }
    ::close(fd);
  }
  ::unlinkat(parent, path, AT_REMOVEDIR);
}

extern "C" void remove_temporaries(int signal) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) {
      if (g_folder[i].load())
        remove_folder(AT_FDCWD, g_temporary[i], 0);
      else
        ::unlink(g_temporary[i]);
    }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install_handlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (int signal : kEndingSignals) {
    struct sigaction old {};
    if (::sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
      std::signal(signal, remove_temporaries);  // an ignored signal stays ignored
  }
}

}  // namespace

int remember_temporary(const std::string& path, bool folder) {
  install_handlers();
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i].load() && path.size() < PATH_MAX) {
      std::memcpy(g_temporary[i], path.c_str(), path.size() + 1);
      g_folder[i] = folder;
      g_used[i] = true;
      return i;
    }
  return -1;  // more files than slots: only cleanup on signals is lost
}

void forget_temporary(int slot) {
  if (slot >= 0) g_used[slot] = false;
}

SignalsHeld::SignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  for (int signal : kEndingSignals) sigaddset(&held, signal);
  pthread_sigmask(SIG_BLOCK, &held, &previous_);
}

SignalsHeld::~SignalsHeld() {
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

namespace {

std::string random_suffix() {
  static std::mt19937 generator{std::random_device{}()};
  static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string suffix;
  for (int i = 0; i < 8; ++i) suffix += letters[generator() % (sizeof letters - 1)];
  return suffix;
}

IoError cannot_write(const std::string& path, int error) {
  return IoError("cannot write " + path + ": " + std::strerror(error));
}

int open_in_place(const std::string& path, const std::string& target) {
  int fd;
  do fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw cannot_write(path, errno);
  return fd;
}

}  // namespace

std::string output_target(const std::string& path) {
  std::string current = path;
  for (int depth = 0; depth < 40; ++depth) {  // the kernel's own limit on nested links
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char link[PATH_MAX];
    ssize_t n = ::readlink(current.c_str(), link, sizeof link - 1);
    if (n <= 0) return current;
    std::string next(link, n);
    size_t slash = current.rfind('/');
    if (next[0] != '/' && slash != std::string::npos) next = current.substr(0, slash + 1) + next;
    current = next;
  }
  return current;
}

OutputFile::OutputFile(const std::string& path) : path_(path), target_(output_target(path)) {
  if (path == "-") {  // standard output, written in place; a copy, so that commit() may close it
    path_ = "standard output";
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) throw cannot_write(path_, errno);
    return;
  }
  struct stat st;
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {  // a device, a FIFO, a directory (refused by open)
    fd_ = open_in_place(path_, target_);
    return;
  }
  if (exists && ::access(target_.c_str(), W_OK) != 0) throw cannot_write(path_, errno);
  const size_t slash = target_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target_.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? target_ : target_.substr(slash + 1);
  const SignalsHeld held;  // until the handler knows the temporary
  for (int attempt = 0;; ++attempt) {
    temporary_ =
        (slash == std::string::npos ? "" : dir) + "." + name + ".minimt-" + random_suffix();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    if ((errno == EEXIST && attempt < 100) || errno == EINTR) continue;
    const int error = errno;
    temporary_.clear();
    // A writable file in a directory we may not add to: write it in place, as before.
    if (exists && (error == EACCES || error == EPERM)) {
      fd_ = open_in_place(path_, target_);
      return;
    }
    throw cannot_write(path_, error);
  }
  if (exists) ::fchmod(fd_, st.st_mode & 07777);  // replacing a file keeps its permissions
  slot_ = remember_temporary(temporary_, false);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) {
    ::unlink(temporary_.c_str());
    forget_temporary(slot_);
  }
}

void OutputFile::write(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n >= 0) {
      done += n;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking descriptor
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else if (errno != EINTR) {
      throw cannot_write(path_, errno);
    }
  }
}

void OutputFile::commit() {
  if (committed_ || fd_ < 0) return;
  committed_ = true;
  // On disk before the rename: a crash right after it must not leave an empty file.
  if (!temporary_.empty() && ::fsync(fd_) != 0 && errno != EINVAL) throw cannot_write(path_, errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0 && errno != EINTR) throw cannot_write(path_, errno);
  if (temporary_.empty()) return;
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) throw cannot_write(path_, errno);
  forget_temporary(slot_);
  temporary_.clear();
}

OutputFileStream::Buffer::Buffer(OutputFile& file) : file_(file) {
  setp(data_, data_ + sizeof data_);
}

OutputFileStream::Buffer::int_type OutputFileStream::Buffer::overflow(int_type c) {
  if (sync() != 0) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int OutputFileStream::Buffer::sync() {
  if (pptr() == pbase()) return 0;
  try {
    file_.write(std::string(pbase(), pptr()));
  } catch (const IoError&) {
    setp(data_, data_ + sizeof data_);
    return -1;
  }
  setp(data_, data_ + sizeof data_);
  return 0;
}

OutputFileStream::OutputFileStream(OutputFile& file) : std::ostream(nullptr), buffer_(file) {
  rdbuf(&buffer_);
}

OutputFileStream::~OutputFileStream() = default;

}  // namespace minimt
