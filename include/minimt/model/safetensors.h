// Reader for the safetensors format: 8-byte little-endian header length, JSON header, raw data.
#pragma once

#include <string>

#include "minimt/model/tensor.h"

namespace minimt {

// Memory-maps `path`, validates the header (dtypes, shapes, offsets inside the file and not
// overlapping) and adds every tensor to `store`: F32 in place, F16 and BF16 widened to F32.
void read_safetensors(const std::string& path, TensorStore& store);

}  // namespace minimt
