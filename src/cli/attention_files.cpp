#include "cli/attention_files.h"

#include "cli/commands.h"
#include "minimt/app/attention_view.h"
#include "minimt/base/error.h"

namespace minimt::cli {

DumpFile::DumpFile(const std::string& path, const Model& model, const DumpSelection& selection)
    : path_(path) {
  {  // check the selection against the model before creating the file
    std::ostream nowhere(nullptr);
    AttentionDumpWriter check(nowhere, model, selection);
  }
  file_.open(path);
  if (!file_) throw IoError("cannot write " + path);
  writer_ = std::make_unique<AttentionDumpWriter>(file_, model, selection);
}

void DumpFile::finish() {
  writer_->finish();
  file_.close();
  if (!file_) throw IoError("cannot write " + path_);
}

void ViewFile::finish() {
  writer_.finish();
  std::istringstream in(text_.str());
  text_.str("");
  write_view(read_attention_dump(in, "the attention of this run"), path_, ViewOptions(), !quiet_);
}

}  // namespace minimt::cli
