// LineReader: the lines of a file or of standard input, read through a large buffer. Knows
// whether more input is available right now, so that interactive callers can answer the lines
// they have instead of waiting for more, and can be cancelled while it waits for input.
#pragma once

#include <atomic>
#include <string>

namespace minimt {

class LineReader {
 public:
  enum class Status {
    kLine,      // `line` holds the next line
    kEnd,       // end of input (or cancelled while waiting)
    kNotReady,  // no complete line can be read without waiting (only when asked not to wait)
  };

  // Reads `path`, or standard input when path is "" or "-". Throws IoError if it cannot open it.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its '\n' and without one trailing '\r'. A last line without '\n'
  // still counts. A line longer than kMaxLineBytes (text_input.h) comes back as its first
  // kMaxLineBytes + 1 bytes, the rest of it read and dropped, so that a huge line costs no
  // more memory than a short one; the caller sees that it is too long and cuts it (the
  // Translator does). With wait = false, returns kNotReady instead of blocking when no complete
  // line is buffered and the input has nothing ready. While waiting, checks `cancel` every
  // 100 ms and returns kEnd once it is set. Throws IoError on a read error.
  Status next(std::string& line, bool wait = true, const std::atomic<bool>* cancel = nullptr);

  // The number of lines from here to the end of a regular file (read ahead with pread, so the
  // position does not move); -1 when the input is not a regular file.
  long long count_remaining_lines() const;

  bool regular_file() const { return regular_; }  // false: a pipe, a terminal, a socket...
  long long lines_read() const { return lines_; }
  int fd() const { return fd_; }

 private:
  bool take_line(std::string& line);  // a complete line from the buffer, if there is one
  bool fill();                        // one read(); false at end of input

  int fd_ = -1;
  bool owned_ = false;
  bool regular_ = false;
  bool eof_ = false;
  std::string name_;  // for messages: the path or "stdin"
  std::string buffer_;
  size_t start_ = 0;      // buffer_[start_..] is not consumed yet
  size_t scan_ = 0;       // buffer_[start_..scan_) holds no '\n'
  bool cut_ = false;      // reading past the kept part of a long line, up to its '\n'
  std::string cut_line_;  // that kept part
  long long lines_ = 0;
};

}  // namespace minimt
