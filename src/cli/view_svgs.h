// minimt view --svg: one static SVG per attention type of each sentence shown, or of the
// difference of two dumps.
#pragma once

#include <string>
#include <vector>

#include "minimt/app/views/attention_view.h"

namespace minimt::cli {

// PREFIX-TYPE.svg for each type of each sentence shown (PREFIX-N-TYPE.svg if several); with
// two dumps, their difference: `before` is the sentence of A.
struct SvgFile {
  std::string path;
  const DumpSentence* sentence;
  std::string type;
  const DumpSentence* before = nullptr;
};

// The runs compared, for the SVGs of a difference.
struct Comparison {
  const NamedDump* a = nullptr;
  const NamedDump* b = nullptr;
  float scale = 0;  // the page's: the largest |B - A|
};

// The SVGs of `dump`'s sentences `numbers` (all when empty), named from `prefix`; with
// `before` (A), of the difference B - A, for the types both dumps hold.
std::vector<SvgFile> svg_files(const AttentionDump& dump, const std::string& prefix,
                               std::vector<int> numbers, const AttentionDump* before = nullptr);
// Writes one, reported on stderr.
void write_svg(const SvgFile& svg_file, const Comparison& runs);

}  // namespace minimt::cli
