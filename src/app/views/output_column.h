// The pieces right of the decoder's rows: what the model predicted there (translate), or the
// target it was given (score's teacher forcing, a --prefix), with the model's own most likely
// piece beside a given one where they differ. Shared by the SVG and the terminal; the page's
// script says the same (view/labels.js).
#pragma once

#include <string>

#include "minimt/app/record/dump_reader.h"

namespace minimt::view {

// The column's heading: "predicted", "target (given)", or "given, then predicted" (a prefix).
const char* output_column_name(const DumpSentence& s);

// Whether output token i was given to the decoder rather than chosen by it.
inline bool output_given(const DumpSentence& s, size_t i) {
  return static_cast<int>(i) < s.given_tokens;
}

// The model's own most likely piece at output position i and its probability, when the
// token there was given and is not that piece (from the dump's alternatives); else nullptr.
const std::pair<std::string, float>* model_choice(const DumpSentence& s, size_t i);

}  // namespace minimt::view
