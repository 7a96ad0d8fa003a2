// OutputWriter: buffered output to a file or standard output that notices a closed pipe.
// With SIGPIPE ignored, writing to a pipe whose reader is gone fails with EPIPE; write() and
// flush() then return false instead of throwing, so the caller can stop quietly (as `head`
// expects).
#pragma once

#include <string>
#include <string_view>

namespace minimt {

class OutputWriter {
 public:
  // Writes `path` (created or truncated), or standard output when path is "" or "-". Throws
  // IoError if it cannot open it.
  explicit OutputWriter(const std::string& path);
  ~OutputWriter();  // flushes what it can, silently; call flush() to see errors
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  // Buffers text, writing it out when the buffer is large. False once the reader is gone.
  bool write(std::string_view text);
  // Writes out everything buffered. False once the reader is gone (EPIPE); throws IoError on
  // any other write error (a full disk, for example).
  bool flush();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool owned_ = false;
  bool closed_ = false;
  std::string name_;  // for messages: the path or "stdout"
  std::string buffer_;
};

// Ignores SIGPIPE for the whole process, so that writing to a closed pipe fails with EPIPE
// instead of killing the process.
void ignore_sigpipe();

}  // namespace minimt
