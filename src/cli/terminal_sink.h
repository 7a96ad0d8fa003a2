// Where translate and score put what a run makes (app's RecordSink): the records to -o, each
// line's warnings and errors to stderr above the progress bar, the --show pictures there too.
#pragma once

#include <unistd.h>

#include <string>

#include "minimt/app/io/output_writer.h"
#include "minimt/app/io/progress.h"
#include "minimt/app/run/request_run.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {

// The records to -o; each line's warnings and errors to stderr, above the progress bar.
class TerminalSink : public RecordSink {
 public:
  TerminalSink(OutputWriter& out, ProgressBar& progress, bool output_under_bar, bool quiet,
               int max_length, int max_positions)
      : out_(out),
        progress_(progress),
        output_under_bar_(output_under_bar),
        quiet_(quiet),
        max_length_(max_length),
        max_positions_(max_positions) {}

  void notice(const LineNotice& notice) override;
  // On a terminal, the text of a record (pieces from the model file, input text) is made
  // visible; into a file or a pipe it goes byte for byte, as scripts read it.
  bool write(const std::string& record) override {
    return out_.write(to_terminal_ ? visible_lines(record) : record);
  }
  bool batch_written(long long written) override {
    const bool reader_there = out_.flush();  // each batch goes out as soon as it is its turn
    progress_.update(written);
    return reader_there;
  }
  // Above the bar, like the warnings, but as drawn: escaping the picture would print its
  // colours as text (its labels are escaped already, terminal_heatmap.h).
  void picture(const std::string& heatmap) override {
    if (output_under_bar_) progress_.clear();
    progress_.drawing(heatmap);
  }
  void finish();  // the warnings not given line by line, counted

 private:
  OutputWriter& out_;
  const bool to_terminal_ = isatty(out_.fd()) == 1;
  ProgressBar& progress_;
  const bool output_under_bar_, quiet_;
  const int max_length_, max_positions_;
  long long unknown_lines_ = 0, cut_short_lines_ = 0;  // warned about, or not past the first few
};

}  // namespace minimt::cli
