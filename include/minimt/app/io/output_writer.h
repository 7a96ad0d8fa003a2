// OutputWriter: buffered output to a file or standard output that notices a closed pipe.
// With SIGPIPE ignored, writing to a pipe whose reader is gone fails with EPIPE; write() and
// flush() then return false instead of throwing, so the caller can stop quietly (as `head`
// expects).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "minimt/app/io/output_file.h"

namespace minimt {

class OutputWriter {
 public:
  // Writes `path`, or standard output when path is "" or "-". A file is written under a
  // temporary name and replaces `path` at commit() (output_file.h). Throws IoError if it
  // cannot create it.
  explicit OutputWriter(const std::string& path);
  // Flushes what it can, silently; without commit(), a file is dropped and `path` left as it was.
  ~OutputWriter();
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  // Buffers text, writing it out when the buffer is large. False once the reader is gone.
  bool write(std::string_view text);
  // Writes out everything buffered. False once the reader is gone (EPIPE); throws IoError on
  // any other write error (a full disk, for example).
  bool flush();
  // Flushes, then puts the file in place (nothing more for standard output); throws IoError.
  void commit();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::unique_ptr<OutputFile> file_;  // null for standard output
  bool closed_ = false;
  std::string name_;  // for messages: the path or "stdout"
  std::string buffer_;
};

// Ignores SIGPIPE for the whole process, so that writing to a closed pipe fails with EPIPE
// instead of killing the process.
void ignore_sigpipe();

}  // namespace minimt
