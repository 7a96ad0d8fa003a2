// The model's generation block (docs/model-format.md, "Generation settings") as the defaults
// of minimt translate: every setting the command line left out takes the model's (a --task's
// over the block's), and the user is told which did.
#pragma once

#include <functional>
#include <string>

#include "minimt/app/request.h"
#include "minimt/model/config.h"

namespace minimt::cli {

// given(option) says whether the command line set that option ("--beam-size"). Returns the
// settings taken from the model and where they came from, "" for none; throws Error for a
// --task the model does not have.
std::string apply_generation_defaults(Request& request, const ModelConfig& config,
                                      const std::function<bool(const std::string&)>& given);

}  // namespace minimt::cli
