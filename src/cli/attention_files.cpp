#include "cli/attention_files.h"

#include "minimt/app/attention_view.h"
#include "minimt/base/error.h"

namespace minimt::cli {

DumpFile::DumpFile(const std::string& path, const Model& model, const DumpSelection& selection)
    : path_(path) {
  {  // check the selection against the model before creating the file
    std::ostream nowhere(nullptr);
    AttentionDumpWriter check(nowhere, model, selection);
  }
  file_ = std::make_unique<OutputFile>(path);
  stream_ = std::make_unique<OutputFileStream>(*file_);
  writer_ = std::make_unique<AttentionDumpWriter>(*stream_, model, selection);
}

void DumpFile::finish() {
  writer_->finish();
  stream_->flush();
  if (!*stream_) throw IoError("cannot write " + path_);
}

void ViewFile::finish() {
  writer_.finish();
  std::istringstream in(text_.str());
  text_.str("");
  page_ = render_view(read_attention_dump(in, "the attention of this run"), ViewOptions());
  file_.write(page_.text);
}

void ViewFile::commit() {
  file_.commit();
  if (!quiet_) report_view(file_.path(), page_);
}

}  // namespace minimt::cli
