// One sentence of a Translator::translate batch that goes through the model.
#pragma once

#include <vector>

#include "minimt/app/translator.h"

namespace minimt {

struct Translator::Job {
  size_t index = 0;             // into the results
  std::vector<int> prefix_ids;  // forced start of the output
  std::vector<int> target_ids;  // kSourceAndTarget: the output to score, eos included
};

}  // namespace minimt
