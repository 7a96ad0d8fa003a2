// Where a run's lines come from, a batch at a time: a file or standard input (ReaderLines),
// lines in memory (MemoryLines); a server would queue its clients' lines behind one.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "minimt/app/io/line_reader.h"

namespace minimt {

class LineSource {
 public:
  virtual ~LineSource() = default;
  // Appends up to `count` lines to `lines` (empty) and sets `first_line` to the number of the
  // first (lines count from 1); false when there are none left, or `cancelled` was set while
  // waiting for them.
  virtual bool read(std::vector<std::string>& lines, long long& first_line, size_t count,
                    const std::atomic<bool>& cancelled) = 0;
};

// The lines of a LineReader. When the input is not a regular file (a pipe, a terminal), a
// batch is handed over as soon as no further line is available right away, so interactive use
// gets each answer promptly.
class ReaderLines : public LineSource {
 public:
  explicit ReaderLines(LineReader& reader) : reader_(reader) {}
  bool read(std::vector<std::string>& lines, long long& first_line, size_t count,
            const std::atomic<bool>& cancelled) override;

 private:
  LineReader& reader_;
};

// Lines given in memory (e.g. command-line arguments), numbered from 1.
class MemoryLines : public LineSource {
 public:
  explicit MemoryLines(std::vector<std::string> lines) : lines_(std::move(lines)) {}
  bool read(std::vector<std::string>& lines, long long& first_line, size_t count,
            const std::atomic<bool>& cancelled) override;

 private:
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

}  // namespace minimt
