#include "minimt/app/io/line_source.h"

#include <algorithm>

namespace minimt {

bool ReaderLines::read(std::vector<std::string>& lines, long long& first_line, size_t count,
                       const std::atomic<bool>& cancelled) {
  // A regular file never makes a reader wait long: fill every batch. Anything else may be a
  // person typing or a program that sends a line and waits for its answer.
  const bool fill_batches = reader_.regular_file();
  first_line = reader_.lines_read() + 1;
  std::string line;
  if (reader_.next(line, true, &cancelled) != LineReader::Status::kLine) return false;
  lines.push_back(std::move(line));
  while (lines.size() < count &&
         reader_.next(line, fill_batches, &cancelled) == LineReader::Status::kLine)
    lines.push_back(std::move(line));
  return true;
}

bool MemoryLines::read(std::vector<std::string>& lines, long long& first_line, size_t count,
                       const std::atomic<bool>&) {
  if (next_ >= lines_.size()) return false;
  first_line = static_cast<long long>(next_) + 1;
  const size_t end = std::min(lines_.size(), next_ + count);
  lines.assign(lines_.begin() + next_, lines_.begin() + end);
  next_ = end;
  return true;
}

}  // namespace minimt
