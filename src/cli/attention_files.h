// The attention outputs of minimt translate: --dump-attention FILE and --view FILE.html. Both
// take the translations in input order, on the writing thread, and are complete after finish().
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "minimt/app/attention_dump.h"
#include "minimt/model/model.h"
#include "minimt/app/translator.h"

namespace minimt::cli {

// --dump-attention: the dump file, written as the translations come.
class DumpFile {
 public:
  // Checks `selection` against the model before creating the file; throws Error.
  DumpFile(const std::string& path, const Model& model, const DumpSelection& selection);
  void add(const Translation& translation) { writer_->add(translation); }
  void finish();

 private:
  std::string path_;
  std::ofstream file_;
  std::unique_ptr<AttentionDumpWriter> writer_;
};

// --view: the dump kept in memory, rendered at the end as minimt view would.
class ViewFile {
 public:
  ViewFile(std::string path, const Model& model, const DumpSelection& selection, bool quiet)
      : path_(std::move(path)), quiet_(quiet), writer_(text_, model, selection) {}
  void add(const Translation& translation) { writer_.add(translation); }
  void finish();

 private:
  std::string path_;
  bool quiet_;
  std::ostringstream text_;
  AttentionDumpWriter writer_;
};

}  // namespace minimt::cli
