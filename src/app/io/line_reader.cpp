#include "minimt/app/io/line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "minimt/base/error.h"
#include "minimt/base/text_input.h"

namespace minimt {
namespace {

constexpr size_t kChunk = 256 * 1024;
constexpr int kWaitSliceMs = 100;
// A longer line is kept to this many bytes: one more than a line may have (text_input.h), so
// that the translator sees that it is too long, cuts it at a character boundary and says so.
constexpr size_t kKeptBytes = kMaxLineBytes + 1;

std::string describe_errno(int error) {
  return std::strerror(error);
}

// Whether fd has something to read (data, end of file or an error) within timeout_ms.
bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  int n;
  do {
    n = ::poll(&p, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n != 0;  // on a poll error, let read() report it
}

}  // namespace

LineReader::LineReader(const std::string& path) {
  if (path.empty() || path == "-") {
    fd_ = STDIN_FILENO;
    name_ = "stdin";
  } else {
    do {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) throw IoError("cannot read " + path + ": " + describe_errno(errno));
    owned_ = true;
    name_ = path;
  }
  struct stat info {};
  if (::fstat(fd_, &info) == 0) {
    regular_ = S_ISREG(info.st_mode);
    if (S_ISDIR(info.st_mode)) {
      if (owned_) ::close(fd_);
      throw IoError("cannot read " + name_ + ": it is a directory");
    }
  }
}

LineReader::~LineReader() {
  if (owned_) ::close(fd_);
}

bool LineReader::take_line(std::string& line) {
  const char* data = buffer_.data();
  const void* newline = std::memchr(data + scan_, '\n', buffer_.size() - scan_);
  size_t end;
  if (!newline) {
    if (cut_) {
      start_ = buffer_.size();  // the rest of a cut line: dropped as it comes in
    } else if (buffer_.size() - start_ > kKeptBytes) {
      cut_line_.assign(data + start_, kKeptBytes);
      cut_ = true;
      start_ = buffer_.size();
    }
    scan_ = buffer_.size();
    if (!eof_ || (start_ == buffer_.size() && !cut_)) return false;
    end = buffer_.size();  // the last line has no '\n': it is a line all the same
  } else {
    end = static_cast<const char*>(newline) - data;
  }
  if (cut_) {
    line.swap(cut_line_);
    cut_line_.clear();
    cut_ = false;
  } else if (end - start_ > kKeptBytes) {
    line.assign(data + start_, kKeptBytes);
  } else {
    line.assign(data + start_, end - start_);
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }
  start_ = scan_ = std::min(end + 1, buffer_.size());
  ++lines_;
  return true;
}

bool LineReader::fill() {
  if (start_ > 0 && start_ >= buffer_.size() / 2) {  // drop what was consumed
    buffer_.erase(0, start_);
    scan_ -= start_;
    start_ = 0;
  }
  const size_t old = buffer_.size();
  buffer_.resize(old + kChunk);
  ssize_t n;
  do {
    n = ::read(fd_, &buffer_[old], kChunk);
  } while (n < 0 && errno == EINTR);
  const int error = errno;
  buffer_.resize(old + (n > 0 ? n : 0));
  if (n < 0) throw IoError("cannot read " + name_ + ": " + describe_errno(error));
  if (n == 0) eof_ = true;
  return n > 0;
}

LineReader::Status LineReader::next(std::string& line, bool wait, const std::atomic<bool>* cancel) {
  for (;;) {
    if (take_line(line)) return Status::kLine;
    if (eof_) return Status::kEnd;
    if (!regular_) {
      if (!wait && !readable(fd_, 0)) return Status::kNotReady;
      // Wait in slices, so that a cancelled run does not stay blocked on a silent input.
      while (wait && !readable(fd_, kWaitSliceMs))
        if (cancel && cancel->load()) return Status::kEnd;
    }
    if (cancel && cancel->load()) return Status::kEnd;
    fill();
  }
}

long long LineReader::count_remaining_lines() const {
  if (!regular_) return -1;
  off_t offset = ::lseek(fd_, 0, SEEK_CUR);
  if (offset < 0) return -1;
  std::vector<char> chunk(1 << 20);
  long long count = 0;
  bool any = false;  // the input has at least one byte
  char last = '\n';  // its last byte
  for (;;) {
    ssize_t n = ::pread(fd_, chunk.data(), chunk.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    const char* end = chunk.data() + n;
    for (const char* p = chunk.data();
         (p = static_cast<const char*>(std::memchr(p, '\n', end - p))); ++p)
      ++count;
    last = end[-1];
    any = true;
    offset += n;
  }
  // Lines already buffered but not returned yet were read from before `offset`.
  for (size_t i = start_; i < buffer_.size(); ++i)
    if (buffer_[i] == '\n') ++count;
  if (!any && buffer_.size() > start_) last = buffer_.back();
  if (last != '\n') ++count;  // a last line without '\n'
  return count;
}

}  // namespace minimt
