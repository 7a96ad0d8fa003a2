// The model's generation block (docs/model-format.md, "Generation settings") as the defaults
// of a translate request, on every front end: every setting the request left out takes the
// model's (a task's over the block's), and the user is told which did.
#pragma once

#include <functional>
#include <string>

#include "minimt/app/run/request.h"
#include "minimt/model/config.h"

namespace minimt {

// given(field) says whether the request set that field (as Request and the options table name
// it: "beam_size"). Returns the settings taken from the model, spelled as the front end spells
// them, and where they came from; "" for none. Throws Error for a task the model does not have.
std::string apply_generation_defaults(Request& request, const ModelConfig& config,
                                      const std::function<bool(const std::string&)>& given,
                                      FieldSpelling spelling = FieldSpelling::kOption);

}  // namespace minimt
