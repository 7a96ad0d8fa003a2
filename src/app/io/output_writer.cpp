#include "minimt/app/io/output_writer.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "minimt/base/error.h"

namespace minimt {
namespace {
constexpr size_t kFlushAt = 64 * 1024;
}

OutputWriter::OutputWriter(const std::string& path) {
  if (path.empty() || path == "-") {
    fd_ = STDOUT_FILENO;
    name_ = "stdout";
    return;
  }
  file_ = std::make_unique<OutputFile>(path);
  fd_ = file_->fd();
  name_ = path;
}

OutputWriter::~OutputWriter() {
  try {
    flush();
  } catch (const Error&) {
  }
  // file_, if not committed, now removes its temporary file: the old file stays as it was.
}

void OutputWriter::commit() {
  flush();
  if (file_) file_->commit();
}

bool OutputWriter::write(std::string_view text) {
  if (closed_) return false;
  buffer_.append(text);
  return buffer_.size() < kFlushAt || flush();
}

bool OutputWriter::flush() {
  size_t done = 0;
  while (!closed_ && done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n >= 0) {
      done += n;
    } else if (errno == EPIPE) {
      closed_ = true;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking descriptor
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else if (errno != EINTR) {
      const int error = errno;
      buffer_.clear();
      throw IoError("cannot write " + name_ + ": " + std::strerror(error));
    }
  }
  buffer_.clear();
  return !closed_;
}

void ignore_sigpipe() {
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace minimt
