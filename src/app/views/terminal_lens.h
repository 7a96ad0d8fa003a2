// The logit lens (--logit-lens) as a terminal table (show --values lens): a line per decoder
// position, a column per decoder layer the dump holds; of one run, or of two runs compared.
#pragma once

#include <string>

#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

// Each cell: that layer's most likely next piece and its probability. Throws Error when the
// sentence has no logit lens.
std::string draw_lens(const DumpSentence& s, const TerminalStyle& style);

// Two runs of the same sentence on the decoder layers both hold (by label, in A's order): each
// cell B's most likely next piece, B's probability of it and B - A, A's probability read from
// the pieces A's dump kept ("?" when they do not hold it), marked "*" when A's most likely piece
// is another. The layers go in blocks that fit style.width. Throws Error naming the run that
// has no logit lens, or when the runs share no layer.
std::string draw_lens_difference(const DumpSentence& a, const DumpSentence& b,
                                 const TerminalStyle& style, const std::string& a_name,
                                 const std::string& b_name);

}  // namespace minimt::view
