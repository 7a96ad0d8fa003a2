// The attention outputs of minimt translate: --dump-attention FILE and --view FILE.html. Both
// are created (under a temporary name, output_file.h) before the run, take the translations in
// input order on the writing thread, are complete after finish() and put in place by commit().
#pragma once

#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "minimt/app/attention_dump.h"
#include "minimt/app/output_file.h"
#include "minimt/app/translator.h"
#include "minimt/model/model.h"

namespace minimt::cli {

// --dump-attention: the dump file, written as the translations come.
class DumpFile {
 public:
  // Checks `selection` against the model before creating the file; throws Error.
  DumpFile(const std::string& path, const Model& model, const DumpSelection& selection);
  void add(const Translation& translation) { writer_->add(translation); }
  void finish();
  void commit() { file_->commit(); }

 private:
  std::string path_;
  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<OutputFileStream> stream_;
  std::unique_ptr<AttentionDumpWriter> writer_;
};

// --view: the dump kept in memory, rendered at the end as minimt view would.
class ViewFile {
 public:
  ViewFile(const std::string& path, const Model& model, const DumpSelection& selection, bool quiet)
      : file_(path), quiet_(quiet), writer_(text_, model, selection) {}
  void add(const Translation& translation) { writer_.add(translation); }
  void finish();  // renders the page into the file
  void commit();  // and says so on stderr, unless quiet

 private:
  OutputFile file_;
  bool quiet_;
  std::ostringstream text_;
  AttentionDumpWriter writer_;
  RenderedView page_;
};

}  // namespace minimt::cli
