#include "minimt/base/half_float.h"

#include <cstring>

#include "minimt/base/base64.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace minimt {
namespace {

uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

#if defined(__x86_64__)
// The F16C instruction widens 8 halves at once, exactly (every F16 value is an F32 value).
__attribute__((target("f16c,avx"))) void widen_halves_f16c(const uint8_t* source, size_t count,
                                                           float* out) {
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + 2 * i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(halves));
  }
  for (; i < count; ++i) out[i] = half_to_float(load_u16(source + 2 * i));
}
#endif

}  // namespace

uint16_t float_to_half(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t biased = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (biased == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int exponent = static_cast<int>(biased) - 127 + 15;
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // too large: infinity
  if (exponent <= 0) {                                               // subnormal or zero
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | static_cast<uint32_t>(exponent) << 10 | mantissa >> 13;
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry rounds up the exponent
  return static_cast<uint16_t>(half);
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exponent = 127 - 15 + 1;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// F16 model files are widened at load; done one value at a time it is most of the load time.
uint16_t float_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round half to even on the 16 bits dropped
  return static_cast<uint16_t>(bits >> 16);
}

float bf16_to_float(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

void widen_bf16(const uint8_t* source, size_t count, float* out) {
  for (size_t i = 0; i < count; ++i)
    out[i] = bf16_to_float(static_cast<uint16_t>(source[2 * i] | source[2 * i + 1] << 8));
}

void widen_halves(const uint8_t* source, size_t count, float* out) {
#if defined(__x86_64__)
  // cpuid leaf 1, ecx bit 29: clang 14 has no "f16c" for __builtin_cpu_supports. Asked once:
  // in a virtual machine cpuid traps to the hypervisor, tens of microseconds a call.
  static const bool f16c = [] {
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
  }();
  if (f16c) return widen_halves_f16c(source, count, out);
#endif
  for (size_t i = 0; i < count; ++i) out[i] = half_to_float(load_u16(source + 2 * i));
}

std::string encode_weights(const std::vector<float>& values) {
  std::vector<unsigned char> bytes;
  bytes.reserve(values.size() * 2);
  for (float v : values) {
    uint16_t h = float_to_half(v);
    bytes.push_back(static_cast<unsigned char>(h & 0xff));
    bytes.push_back(static_cast<unsigned char>(h >> 8));
  }
  return base64_encode(bytes);
}

std::vector<float> decode_weights(const std::string& text) {
  const std::vector<unsigned char> bytes = base64_decode(text);
  std::vector<float> values;
  values.reserve(bytes.size() / 2);
  for (size_t i = 0; i + 1 < bytes.size(); i += 2)
    values.push_back(half_to_float(load_u16(&bytes[i])));
  return values;
}

}  // namespace minimt
