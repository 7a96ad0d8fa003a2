// Rewriting a model directory with its Linear weights in another number format: what
// `minimt convert` does (the command line checks the paths and renames the result into place).
#pragma once

#include <cstddef>
#include <string>

#include "minimt/engine/compute_type.h"

namespace minimt {

struct ConversionSummary {
  int linear_layers = 0;          // Linear weights written in the new format
  size_t weights_bytes_in = 0;    // the input's weights file (or config.json, for inline weights)
  size_t weights_bytes_out = 0;   // the model.safetensors written
  size_t linear_float_bytes = 0;  // those Linear weights as F32
  size_t linear_bytes_out = 0;    // and as written (I8 values and F32 scales, or F32)
};

// Reads and validates the model in `in_dir` (config, weights, tokenizers as Model::load does)
// and writes into the existing empty directory `out_dir`: config.json (the same keys, "weights"
// set to "model.safetensors"), the tokenizers under the same names, and model.safetensors with
// every Linear weight with tensors of its own (attention projections, fc1, fc1_linear, fc2, an
// untied lm_head) as
//   int8     NAME.weight I8 [out, in] and NAME.weight_scale F32 [out], from quantize_rows_int8
//            (an I8 input is copied as it is);
//   float32  NAME.weight F32 (an I8 input dequantized: q * scale);
// and every other tensor as the input stores it. Throws Error (bf16: not written) and
// ModelError naming the input file and tensor.
ConversionSummary convert_model(const std::string& in_dir, const std::string& out_dir,
                                ComputeType target);

}  // namespace minimt
