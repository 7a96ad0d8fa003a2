// Reader for the safetensors format: 8-byte little-endian header length, JSON header, raw data.
#pragma once

#include <string>

#include "minimt/model/tensor.h"

namespace minimt {

// Memory-maps `path`, validates the header (dtypes, shapes, offsets inside the file and not
// overlapping), refuses NaN and infinities, and adds every tensor to `store` as a view into the
// mapping: F32 (copied if misaligned), F16 and BF16 (widened to F32 when first found), I8 (the
// quantized Linear weights `minimt convert` writes; the weight binding checks where they are).
void read_safetensors(const std::string& path, TensorStore& store);

}  // namespace minimt
