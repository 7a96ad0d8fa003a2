// One sentence of a Translator::translate batch that goes through the model.
#pragma once

#include <vector>

#include "minimt/app/translate/translator.h"

namespace minimt {

struct Translator::Job {
  size_t index = 0;             // into the results
  std::vector<int> prefix_ids;  // forced start of the output
  std::vector<int> target_ids;  // with given: the output to score, eos included
  // The output is target_ids, scored by teacher forcing, not searched: the targets of
  // kSourceAndTarget, and a blank source's empty translation (what the model gives it).
  bool given = false;
};

}  // namespace minimt
