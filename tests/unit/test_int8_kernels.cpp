// minimt's int8 and bf16 Linear kernels against a double-precision triple loop on the original
// float values, within the error the quantization implies; the int8 results against the formula
// of int8_gemm.h computed here from a quantizer written independently of minimt's; and the
// promises: every int8 kernel gives the same bits, and a row's result does not depend on the
// rows beside it; several products of one input in one call give each one's bits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "engine/kernels/int8_kernels.h"
#include "minimt/engine/bf16_gemm.h"
#include "minimt/engine/int8_gemm.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/quantize.h"
#include "test_support.h"

using minimt::ComputeType;
using minimt::Int8Kernel;
using minimt::Int8Matrix;
using minimt::test::ExactOutput;
using minimt::test::Product;

namespace {

std::vector<Int8Kernel> int8_kernels_here() {
  std::vector<Int8Kernel> kernels;
  for (Int8Kernel k : {Int8Kernel::kAvx512Vnni, Int8Kernel::kAvx2, Int8Kernel::kGeneric})
    if (minimt::int8_kernel_supported(k)) kernels.push_back(k);
  return kernels;
}

Product random_product(int m, int n, int k, unsigned seed) {
  Product p = minimt::test::random_product(m, n, k, seed, [](float v) { return 0.1f * v; });
  // A row of zeros (scale 0) and an outlier, both common in real activations.
  if (m > 2) std::fill(p.x.begin() + k, p.x.begin() + 2 * k, 0.0f);
  if (m > 3) p.x[3 * static_cast<size_t>(k)] = 40.0f;
  return p;
}

std::vector<float> run_int8(const Product& p, Int8Kernel kernel, bool with_bias, int rows = -1,
                            int first_row = 0) {
  if (rows < 0) rows = p.m;
  minimt::PackedArena arena(Int8Matrix::bytes_needed(p.n, p.k) / sizeof(float) + 1);
  const Int8Matrix packed = Int8Matrix::from_float(
      p.w.data(), p.n, p.k, reinterpret_cast<uint8_t*>(arena.data()), kernel);
  std::vector<float> y(static_cast<size_t>(rows) * p.n, -7.0f);
  minimt::int8_linear(packed, with_bias ? p.bias.data() : nullptr,
                      p.x.data() + static_cast<size_t>(first_row) * p.k, rows, p.k, y.data());
  return y;
}

// The quantizer of quantize.h, written again from its comment: scale = max|v| / 127,
// q = round half to even of v * (127 / max|v|).
struct Quantized {
  std::vector<int> q;
  float scale = 0.0f;
};
Quantized quantize(const float* v, int count) {
  Quantized out{std::vector<int>(count, 0), 0.0f};
  float largest = 0.0f;
  for (int i = 0; i < count; ++i) largest = std::max(largest, std::fabs(v[i]));
  if (largest == 0.0f) return out;
  const float inverse = 127.0f / largest;
  for (int i = 0; i < count; ++i) out.q[i] = static_cast<int>(std::nearbyint(v[i] * inverse));
  out.scale = largest / 127.0f;
  return out;
}

// Each output against the exact float product in double, within what quantizing both sides
// allows: |x w - sx qx sw qw| <= |x| sw/2 + |w| sx/2 + sx sw/4 per term (each side is off by at
// most half a step), plus a few float roundings (the scales, the conversion, the fma): 1e-6 of
// sum |x w| + |b|.
void check_int8_against_double(const Product& p, const std::vector<float>& y, bool with_bias) {
  std::vector<float> row_scales(p.m), column_scales(p.n);
  for (int r = 0; r < p.m; ++r)
    row_scales[r] = quantize(p.x.data() + static_cast<size_t>(r) * p.k, p.k).scale;
  for (int j = 0; j < p.n; ++j)
    column_scales[j] = quantize(p.w.data() + static_cast<size_t>(j) * p.k, p.k).scale;
  minimt::test::check_against_double(p, y, with_bias, [&](int r, int j, const ExactOutput& e) {
    const double sx = row_scales[r], sw = column_scales[j];
    return e.abs_x * sw / 2 + e.abs_w * sx / 2 + p.k * sx * sw / 4 + 1e-6 * e.magnitude;
  });
}

// The formula of int8_gemm.h from the test's own quantizer: the same bits, not just close.
void check_int8_formula(const Product& p, const std::vector<float>& y, bool with_bias) {
  int failures = 0;
  for (int r = 0; r < p.m; ++r) {
    const Quantized x = quantize(p.x.data() + static_cast<size_t>(r) * p.k, p.k);
    for (int j = 0; j < p.n; ++j) {
      const Quantized w = quantize(p.w.data() + static_cast<size_t>(j) * p.k, p.k);
      long long sum = 0;
      for (int i = 0; i < p.k; ++i) sum += static_cast<long long>(x.q[i]) * w.q[i];
      const float expected =
          std::fma(static_cast<float>(sum), x.scale * w.scale, with_bias ? p.bias[j] : 0.0f);
      if (y[static_cast<size_t>(r) * p.n + j] != expected && ++failures <= 3) {
        INFO("row " << r << " column " << j);
        CHECK(y[static_cast<size_t>(r) * p.n + j] == expected);
      }
    }
  }
  CHECK(failures == 0);
}

}  // namespace

TEST_CASE("int8: quantize_rows_int8 by hand", "[int8]") {
  // max 1 -> scale 1/127; -0.5 * 127 = -63.5 rounds half to even to -64; 31.75 to 32.
  const float w[] = {1.0f, -0.5f, 0.25f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  int8_t q[8];
  float scales[2];
  minimt::quantize_rows_int8(w, 2, 4, q, scales);
  CHECK(scales[0] == 1.0f / 127.0f);
  CHECK(std::vector<int>(q, q + 4) == std::vector<int>{127, -64, 32, 0});
  CHECK(scales[1] == 0.0f);  // a row of zeros
  CHECK(std::vector<int>(q + 4, q + 8) == std::vector<int>{0, 0, 0, 0});
}

#if defined(__x86_64__)
TEST_CASE("int8: the AVX-512 activation quantizer gives quantize_row_int8's bytes", "[int8]") {
  if (!minimt::int8_kernel_supported(Int8Kernel::kAvx512Vnni)) return;  // nothing to compare
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  int rows = 0;
  for (int k : {1, 15, 16, 17, 63, 64, 65, 127, 128, 192, 200, 511, 512, 768, 2048}) {
    for (int variant = 0; variant < 4; ++variant) {
      std::vector<float> x(k);
      for (float& v : x) v = uniform(rng);
      // 1: the largest value last and negative; 2: the largest 127 (so 127 / max is 1) and
      // the others halves, ties that round to even; 3: a row of zeros.
      if (variant == 1) x[k - 1] = -7.0f;
      if (variant == 2)
        for (int i = 0; i < k; ++i) x[i] = i == 0 ? 127.0f : static_cast<float>(i % 7 - 3) + 0.5f;
      if (variant == 3) std::fill(x.begin(), x.end(), 0.0f);
      std::vector<int8_t> expected(k);
      const float expected_scale = minimt::quantize_row_int8(x.data(), k, expected.data());
      const int stride = (k + 3) / 4 * 4 + 4;  // padded, as the packed rows are
      for (bool offset : {false, true}) {
        INFO("k " << k << " variant " << variant << " offset " << offset);
        std::vector<uint8_t> got(stride, 0x55);
        const float scale =
            minimt::kernels::quantize_row_avx512(x.data(), k, stride, offset, got.data());
        CHECK(scale == expected_scale);
        int wrong = 0;
        for (int i = 0; i < stride; ++i) {
          const int want = (i < k ? expected[i] : 0) + (offset ? 128 : 0);
          wrong += got[i] != static_cast<uint8_t>(want);
        }
        CHECK(wrong == 0);
        ++rows;
      }
    }
  }
  CHECK(rows == 15 * 4 * 2);
  // An infinity (out of quantize_row_int8's domain): the scale is infinite, every finite value
  // 0, the infinity itself (inf * 0 = NaN, converted to INT_MIN) clamped to -127.
  std::vector<float> x(70, 1.0f);
  x[3] = std::numeric_limits<float>::infinity();
  std::vector<uint8_t> got(72);
  CHECK(std::isinf(minimt::kernels::quantize_row_avx512(x.data(), 70, 72, true, got.data())));
  for (int i = 0; i < 72; ++i) CHECK(got[i] == (i == 3 ? 1 : 128));
}
#endif

TEST_CASE("int8: every kernel against double precision and the int8_gemm.h formula", "[int8]") {
  const std::vector<Int8Kernel> kernels = int8_kernels_here();
  REQUIRE(!kernels.empty());
  unsigned seed = 100;
  for (Int8Kernel kernel : kernels) {
    INFO("kernel " << minimt::to_string(kernel));
    for (int m = 1; m <= 14; ++m)
      for (int n : {1, 7, 31, 33, 57, 65, 100})
        for (int k : {1, 2, 3, 5, 17, 64, 129}) {
          INFO("m " << m << " n " << n << " k " << k);
          const Product p = random_product(m, n, k, ++seed);
          const bool with_bias = (m + n + k) % 2 == 0;
          const std::vector<float> y = run_int8(p, kernel, with_bias);
          check_int8_against_double(p, y, with_bias);
          check_int8_formula(p, y, with_bias);
        }
    for (auto [m, n, k] : {std::tuple{1, 1200, 192}, {32, 768, 192}, {40, 1001, 515}}) {
      INFO("large: m " << m << " n " << n << " k " << k);
      const Product p = random_product(m, n, k, ++seed);
      const std::vector<float> y = run_int8(p, kernel, true);
      check_int8_against_double(p, y, true);
      check_int8_formula(p, y, true);
    }
  }
}

TEST_CASE("int8: every kernel gives the same bits, whatever the rows beside", "[int8]") {
  const std::vector<Int8Kernel> kernels = int8_kernels_here();
  const Product p = random_product(29, 70, 131, 9);
  const std::vector<float> first = run_int8(p, kernels.front(), true);
  for (Int8Kernel kernel : kernels) {
    INFO("kernel " << minimt::to_string(kernel));
    CHECK(std::memcmp(run_int8(p, kernel, true).data(), first.data(),
                      first.size() * sizeof(float)) == 0);
    for (int r = 0; r < p.m; r += 5) {
      INFO("row " << r);
      const std::vector<float> alone = run_int8(p, kernel, true, 1, r);
      CHECK(std::memcmp(alone.data(), first.data() + static_cast<size_t>(r) * p.n,
                        alone.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("int8: weights quantized in a file pack as quantized at load", "[int8]") {
  const Product p = random_product(5, 40, 70, 3);
  std::vector<int8_t> q(p.w.size());
  std::vector<float> scales(p.n);
  minimt::quantize_rows_int8(p.w.data(), p.n, p.k, q.data(), scales.data());
  for (Int8Kernel kernel : int8_kernels_here()) {
    minimt::PackedArena arena(Int8Matrix::bytes_needed(p.n, p.k) / sizeof(float) + 1);
    const Int8Matrix packed = Int8Matrix::from_int8(
        q.data(), scales.data(), p.n, p.k, reinterpret_cast<uint8_t*>(arena.data()), kernel);
    std::vector<float> y(static_cast<size_t>(p.m) * p.n);
    minimt::int8_linear(packed, p.bias.data(), p.x.data(), p.m, p.k, y.data());
    const std::vector<float> from_float = run_int8(p, kernel, true);
    CHECK(std::memcmp(y.data(), from_float.data(), y.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("bf16: rounding to bfloat16 by hand", "[bf16]") {
  CHECK(minimt::float_to_bf16(1.0f) == 0x3f80);
  CHECK(minimt::float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3f80);      // a tie: to even
  CHECK(minimt::float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3f82);  // a tie: to even
  CHECK(minimt::float_to_bf16(1.0f + 5 * std::ldexp(1.0f, -9)) == 0x3f81);  // above half: up
  CHECK(minimt::float_to_bf16(-2.5f) == 0xc020);
  CHECK(minimt::bf16_to_float(0x3f81) == 1.0f + std::ldexp(1.0f, -7));
}

TEST_CASE("bf16: the kernel against double precision, or a refusal", "[bf16]") {
  const std::string reason = minimt::compute_type_unsupported_reason(minimt::ComputeType::kBf16);
  if (!reason.empty()) {  // this CPU has no AVX512_BF16: packing must refuse and say why
    std::vector<float> w(8, 1.0f);
    std::vector<uint8_t> storage(minimt::Bf16Matrix::bytes_needed(2, 4));
    CHECK_THROWS_WITH(minimt::Bf16Matrix(w.data(), 2, 4, storage.data()),
                      Catch::Contains("AVX512_BF16"));
    return;
  }
  unsigned seed = 500;
  for (int m : {1, 2, 5, 12, 13, 31})
    for (auto [n, k] : {std::pair{1, 1}, {7, 2}, {33, 3}, {65, 64}, {100, 129}, {1001, 515}}) {
      INFO("m " << m << " n " << n << " k " << k);
      const Product p = random_product(m, n, k, ++seed);
      minimt::PackedArena arena(minimt::Bf16Matrix::bytes_needed(n, k) / sizeof(float) + 1);
      const minimt::Bf16Matrix packed(p.w.data(), n, k, reinterpret_cast<uint8_t*>(arena.data()));
      std::vector<float> y(static_cast<size_t>(m) * n);
      minimt::bf16_linear(packed, p.bias.data(), p.x.data(), m, k, y.data());
      // Rounding x and w to 8 significant bits costs at most 2^-8 of each, so 2^-7 + 2^-16 of
      // each product; the float sums add (k + 4) 2^-24 of sum |x w| + |b|.
      int failures = 0;
      for (int r = 0; r < m; ++r)
        for (int j = 0; j < n; ++j) {
          double exact = p.bias[j], magnitude = 0.0;
          for (int i = 0; i < k; ++i) {
            const double term = double(p.x[size_t(r) * k + i]) * p.w[size_t(j) * k + i];
            exact += term;
            magnitude += std::fabs(term);
          }
          const double bound = magnitude * (std::ldexp(1.0, -7) + std::ldexp(1.0, -16)) +
                               (k + 4) * std::ldexp(1.0, -24) * (magnitude + std::fabs(p.bias[j]));
          if (std::fabs(y[size_t(r) * n + j] - exact) > bound && ++failures <= 3) {
            INFO("row " << r << " column " << j << ": " << y[size_t(r) * n + j] << " vs " << exact);
            CHECK(std::fabs(y[size_t(r) * n + j] - exact) <= bound);
          }
        }
      CHECK(failures == 0);
    }
}

TEST_CASE("int8 and bf16: products of one input in one call, the bits of each alone",
          "[int8][bf16]") {
  // q, k and v of an attention: the same x, three weights of their own widths, with and
  // without a bias; linear_many quantizes (or rounds) x once.
  const int m = 13, k = 70;
  const Product a = random_product(m, 64, k, 21), b = random_product(m, 37, k, 22),
                c = random_product(m, 96, k, 23);
  const Product* products[] = {&a, &b, &c};
  std::vector<ComputeType> types{ComputeType::kInt8};
  if (minimt::compute_type_unsupported_reason(ComputeType::kBf16).empty())
    types.push_back(ComputeType::kBf16);
  for (ComputeType type : types)
    for (Int8Kernel kernel : int8_kernels_here()) {
      if (type == ComputeType::kBf16 && kernel != int8_kernels_here().front()) continue;
      INFO(minimt::to_string(type) << " " << minimt::to_string(kernel));
      std::vector<std::unique_ptr<minimt::PackedArena>> arenas;
      std::deque<Int8Matrix> int8;
      std::deque<minimt::Bf16Matrix> bf16;
      minimt::Linear layers[3];
      std::vector<float> alone[3], together[3];
      for (int j = 0; j < 3; ++j) {
        const Product& p = *products[j];
        arenas.push_back(std::make_unique<minimt::PackedArena>(
            std::max(Int8Matrix::bytes_needed(p.n, k), minimt::Bf16Matrix::bytes_needed(p.n, k)) /
                sizeof(float) +
            1));
        auto* storage = reinterpret_cast<uint8_t*>(arenas.back()->data());
        layers[j].out = p.n;
        layers[j].in = k;
        layers[j].bias = j == 1 ? nullptr : p.bias.data();
        if (type == ComputeType::kInt8) {
          int8.push_back(Int8Matrix::from_float(p.w.data(), p.n, k, storage, kernel));
          layers[j].int8 = &int8.back();
        } else {
          bf16.emplace_back(p.w.data(), p.n, k, storage);
          layers[j].bf16 = &bf16.back();
        }
        alone[j].assign(static_cast<size_t>(m) * p.n, -7.0f);
        together[j].assign(alone[j].size(), -9.0f);
        minimt::ops::linear(layers[j], a.x.data(), m, alone[j].data());
      }
      const minimt::Linear* pointers[] = {&layers[0], &layers[1], &layers[2]};
      float* ys[] = {together[0].data(), together[1].data(), together[2].data()};
      minimt::ops::linear_many(pointers, 3, a.x.data(), m, ys);
      for (int j = 0; j < 3; ++j) {
        INFO("weight " << j);
        CHECK(std::memcmp(alone[j].data(), together[j].data(), alone[j].size() * sizeof(float)) ==
              0);
      }
    }
}
