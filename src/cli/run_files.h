// The files of translate and score: -o, --dump-attention and --view, checked against the
// inputs and each other before any is created, created under temporary names and put in place
// once every output is complete.
#pragma once

#include <memory>
#include <sstream>

#include "cli/line_run.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/io/output_file.h"
#include "minimt/app/io/output_writer.h"
#include "minimt/app/run/request_run.h"
#include "minimt/model/model.h"

namespace minimt::cli {

// Refuses outputs that are an input (-i, standard input redirected from a file, the model's
// files) or each other, before any is created.
void check_paths(const LineRunArgs& args, const Model& model, const LineReader* reader);

// The files of a run, each created (under a temporary name, output_file.h) before it and put
// in place only once every output is complete.
class RunFiles {
 public:
  explicit RunFiles(const LineRunArgs& args);

  OutputWriter& out() { return *out_; }
  AttentionSinks attention();  // the dump's stream, the page's text, --show's terminal
  void commit(const RunSummary& summary);

 private:
  const LineRunArgs& args_;
  std::unique_ptr<OutputFile> dump_file_;
  std::unique_ptr<OutputFileStream> dump_stream_;
  std::unique_ptr<OutputFile> view_file_;
  std::ostringstream page_;
  std::unique_ptr<OutputWriter> out_;
};

}  // namespace minimt::cli
