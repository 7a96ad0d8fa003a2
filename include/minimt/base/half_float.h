// IEEE half floats (F16), the one codec for the weights of F16 model files (safetensors.cpp) and
// the weights the attention page embeds (attention_page.cpp; the page's script decodes the same
// bits in src/app/views/page/data.js).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace minimt {

// Rounds to nearest, ties to even; too large becomes infinity, NaN stays NaN.
uint16_t float_to_half(float value);
// Exact: every half is a float. NaN keeps its payload.
float half_to_float(uint16_t half);
// `count` little-endian halves at `source` into `out`. Uses F16C where the CPU has it (x86-64).
void widen_halves(const uint8_t* source, size_t count, float* out);

// bfloat16: the top 16 bits of a float. Rounds to nearest, ties to even (finite values).
uint16_t float_to_bf16(float value);
// Exact.
float bf16_to_float(uint16_t value);
// `count` little-endian bfloat16 values at `source` into `out`.
void widen_bf16(const uint8_t* source, size_t count, float* out);

// The page embeds weights as base64 of little-endian halves (3 significant digits, down to
// 6e-8): a third of the size of decimal text.
std::string encode_weights(const std::vector<float>& values);
std::vector<float> decode_weights(const std::string& base64);

}  // namespace minimt
