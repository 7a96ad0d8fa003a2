// The forced start of a translation (--prefix, or a --prefix-column line's second column) as
// the pieces the decoder is given. Defined in translator.cpp, beside the code that forces it.
#pragma once

#include <string>
#include <vector>

#include "minimt/model/model.h"

namespace minimt {

// `prefix`'s target pieces, after the model's forced first token (format v2), or only that
// token when `prefix` is blank. Throws InputError, saying why, when it cannot be forced as
// written: bytes that are not UTF-8; words the target vocabulary cannot spell (forced, they
// would be <unk>, which is no text); more pieces than the model writes (max_positions).
std::vector<int> target_prefix_ids(const Model& model, const std::string& prefix);

}  // namespace minimt
