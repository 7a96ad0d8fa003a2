// Writes attention dumps: one JSON document, {"format": "minimt-attention", "version": 1, ...},
// one entry in "sentences" per translated sentence (dump_schema.h), from the dump in memory
// (dump.h; dump_recorder.h records it). Streams: memory holds one sentence at a time.
#pragma once

#include <ostream>

#include "minimt/app/record/dump.h"

namespace minimt {

class AttentionDumpWriter {
 public:
  // Writes the document's opening from `header` (all but its sentences).
  AttentionDumpWriter(std::ostream& out, const AttentionDump& header);
  void add(const DumpSentence& sentence);
  void finish();  // closes the document; called once

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace minimt
