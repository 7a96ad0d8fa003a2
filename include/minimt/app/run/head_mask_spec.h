// --mask-heads SPEC: a comma-separated list of TYPE:LAYER:HEAD, TYPE encoder, decoder or cross,
// LAYER and HEAD numbers (negative counts from the end) or *.
#pragma once

#include <string>

#include "minimt/engine/head_mask.h"
#include "minimt/model/config.h"

namespace minimt {

// Throws Error saying which item is wrong and why.
HeadMask parse_head_mask(const std::string& spec, const ModelConfig& config);

}  // namespace minimt
