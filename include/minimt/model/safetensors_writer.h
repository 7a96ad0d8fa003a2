// Writer for the safetensors format (safetensors.h reads it): what `minimt convert` writes.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "minimt/model/tensor.h"

namespace minimt {

struct TensorToWrite {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
  const void* data = nullptr;  // element_count(shape) values of dtype, little-endian
};

// Writes `tensors` to `path` (created or truncated): the header padded with spaces to a multiple
// of 8 bytes, then the data without holes, widest dtypes first so that every F32 tensor starts
// 4-byte aligned (read in place when mapped). `metadata` becomes "__metadata__" when not empty.
// Returns the bytes written; throws IoError naming the path.
size_t write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                         const std::map<std::string, std::string>& metadata = {});

}  // namespace minimt
