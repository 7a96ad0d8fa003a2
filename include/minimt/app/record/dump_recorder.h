// Records what a translation's attention dump holds (dump.h) straight from the translation: the
// same DumpSentence that reading the dump's JSON back would give, without the JSON. The dump
// writer (attention_dump.h), the page and the terminal all take it from here.
#pragma once

#include <memory>

#include "minimt/app/record/dump.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

namespace minimt {

namespace dump_read {
struct Selection;
}

// Throws Error naming a layer or head the selection asks for and the model does not have.
void check_dump_selection(const DumpSelection& selection, const ModelConfig& config);

class DumpRecorder {
 public:
  // Checks the selection against the model (check_dump_selection).
  DumpRecorder(const Model& model, DumpSelection selection = {});
  ~DumpRecorder();
  DumpRecorder(const DumpRecorder&) = delete;
  DumpRecorder& operator=(const DumpRecorder&) = delete;

  // The dump's document without sentences: the model, the selection, the notes.
  const AttentionDump& header() const { return header_; }
  // Sentence `number` (1-based) of the dump; needs translation.attention unless it failed.
  DumpSentence record(const Translation& translation, int number) const;

 private:
  std::vector<int> resolve_layers(int count) const;

  const Model& model_;
  const DumpSelection selection_;
  AttentionDump header_;
  std::unique_ptr<const dump_read::Selection> kept_;  // the header's selection, as read
};

}  // namespace minimt
