// minimt's packed Linear kernels against a plain triple loop in double precision, for every
// kernel this CPU runs: row counts 1..13 (every row-block remainder), widths that are not
// multiples of the 32-column panel, odd and even k, and large shapes; then the promises of
// packed_gemm.h: a row's result does not depend on how many rows share the call, and the
// kernels agree bit for bit.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "minimt/base/half_float.h"
#include "minimt/engine/packed_gemm.h"
#include "test_support.h"

using minimt::LinearKernel;
using minimt::PackedArena;
using minimt::PackedMatrix;
using minimt::test::ExactOutput;
using minimt::test::Product;

namespace {

std::vector<LinearKernel> kernels_here() {
  std::vector<LinearKernel> kernels;
  for (LinearKernel k : {LinearKernel::kAvx512, LinearKernel::kAvx2, LinearKernel::kGeneric})
    if (minimt::linear_kernel_supported(k)) kernels.push_back(k);
  return kernels;
}

// Rounds to the nearest value an IEEE half holds (10 mantissa bits; normal range), as F16
// weights are after widening at load.
float to_half_precision(float v) {
  int exponent = 0;
  const float mantissa = std::frexp(v, &exponent);  // v = mantissa * 2^exponent, |m| in [0.5, 1)
  return std::ldexp(std::nearbyint(mantissa * 2048.0f) / 2048.0f, exponent);
}

Product random_product(int m, int n, int k, unsigned seed, bool half_weights = false) {
  return minimt::test::random_product(
      m, n, k, seed, [half_weights](float v) { return half_weights ? to_half_precision(v) : v; });
}

std::vector<float> run(const Product& p, LinearKernel kernel, bool with_bias, int rows = -1,
                       int first_row = 0) {
  if (rows < 0) rows = p.m;
  PackedArena arena(PackedMatrix::floats_needed(p.n, p.k));
  PackedMatrix packed(p.w.data(), p.n, p.k, arena.data(), kernel);
  std::vector<float> y(static_cast<size_t>(rows) * p.n, -7.0f);
  minimt::packed_linear(packed, with_bias ? p.bias.data() : nullptr,
                        p.x.data() + static_cast<size_t>(first_row) * p.k, rows, p.k, y.data());
  return y;
}

// Each output against the exact sum (in double) within the rounding bound of a float dot
// product of length k: |error| <= (k + 2) u (sum |x w| + |b|), u = 2^-24.
void check_against_double(const Product& p, const std::vector<float>& y, bool with_bias) {
  const double u = std::ldexp(1.0, -24);
  minimt::test::check_against_double(p, y, with_bias, [&](int, int, const ExactOutput& exact) {
    return (p.k + 2) * u * exact.magnitude;
  });
}

}  // namespace

TEST_CASE("packed kernels: every kernel against a double-precision triple loop", "[kernels]") {
  const std::vector<LinearKernel> kernels = kernels_here();
  REQUIRE(!kernels.empty());
  unsigned seed = 1;
  for (LinearKernel kernel : kernels) {
    INFO("kernel " << minimt::to_string(kernel));
    for (int m = 1; m <= 13; ++m)
      for (int n : {1, 7, 16, 31, 33, 65, 100})
        for (int k : {1, 2, 3, 17, 64, 129}) {
          INFO("m " << m << " n " << n << " k " << k);
          const Product p = random_product(m, n, k, ++seed);
          const bool with_bias = (m + n + k) % 2 == 0;
          check_against_double(p, run(p, kernel, with_bias), with_bias);
        }
    for (auto [m, n, k] : {std::tuple{1, 1200, 192}, {16, 768, 192}, {40, 1001, 515}}) {
      INFO("large: m " << m << " n " << n << " k " << k);
      const Product p = random_product(m, n, k, ++seed);
      check_against_double(p, run(p, kernel, true), true);
    }
  }
}

TEST_CASE("packed kernels: F16-valued weights (as widened at load)", "[kernels]") {
  for (LinearKernel kernel : kernels_here()) {
    INFO("kernel " << minimt::to_string(kernel));
    const Product p = random_product(9, 77, 131, 42, true);
    check_against_double(p, run(p, kernel, true), true);
  }
}

TEST_CASE("packed kernels: a row's result does not depend on the rows beside it", "[kernels]") {
  for (LinearKernel kernel : kernels_here()) {
    INFO("kernel " << minimt::to_string(kernel));
    const Product p = random_product(13, 70, 67, 7);
    const std::vector<float> together = run(p, kernel, true);
    for (int r = 0; r < p.m; ++r) {
      INFO("row " << r);
      const std::vector<float> alone = run(p, kernel, true, 1, r);
      CHECK(std::memcmp(alone.data(), together.data() + static_cast<size_t>(r) * p.n,
                        alone.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("packed kernels: every kernel gives the same bits", "[kernels]") {
  const std::vector<LinearKernel> kernels = kernels_here();
  for (auto [m, n, k] : {std::tuple{1, 33, 17}, {7, 100, 64}, {13, 65, 129}}) {
    INFO("m " << m << " n " << n << " k " << k);
    const Product p = random_product(m, n, k, 99);
    const std::vector<float> first = run(p, kernels.front(), true);
    for (LinearKernel kernel : kernels) {
      INFO("kernel " << minimt::to_string(kernel) << " against "
                     << minimt::to_string(kernels.front()));
      CHECK(std::memcmp(run(p, kernel, true).data(), first.data(), first.size() * sizeof(float)) ==
            0);
    }
  }
}

TEST_CASE("packed kernels: names, and a kernel the CPU lacks is refused", "[kernels]") {
  for (LinearKernel kernel : {LinearKernel::kOpenblas, LinearKernel::kGeneric, LinearKernel::kAvx2,
                              LinearKernel::kAvx512})
    CHECK(minimt::parse_linear_kernel(minimt::to_string(kernel)) == kernel);
  CHECK_THROWS_WITH(minimt::parse_linear_kernel("sse"),
                    "unknown kernel 'sse' (expected avx512, avx2, generic or openblas)");
  CHECK(minimt::linear_kernel_supported(LinearKernel::kGeneric));
  CHECK(minimt::linear_kernel_supported(minimt::best_linear_kernel()));
  std::vector<float> w(4, 1.0f), storage(PackedMatrix::floats_needed(2, 2));
  CHECK_THROWS(PackedMatrix(w.data(), 2, 2, storage.data(), LinearKernel::kOpenblas));
}

TEST_CASE("packed kernels: packing from F16, BF16 and I8 equals packing their float32 values",
          "[kernels]") {
  const int n = 45, k = 19;  // a partial panel, odd k
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  std::vector<uint16_t> halves(n * k), brains(n * k);
  std::vector<int8_t> q(n * k);
  std::vector<float> scale(n), from_half(n * k), from_brain(n * k), from_q(n * k);
  for (int i = 0; i < n * k; ++i) {
    halves[i] = minimt::float_to_half(uniform(rng));
    from_half[i] = minimt::half_to_float(halves[i]);
    brains[i] = static_cast<uint16_t>(halves[i] ^ (i * 40503u));
    brains[i] = static_cast<uint16_t>((brains[i] & 0x807f) | 0x3f00);  // finite, near 1
    const uint32_t bits = static_cast<uint32_t>(brains[i]) << 16;
    std::memcpy(&from_brain[i], &bits, 4);
    q[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 255) - 127);
  }
  for (int o = 0; o < n; ++o) scale[o] = 0.001f * static_cast<float>(o + 1) / 3.0f;
  for (int i = 0; i < n * k; ++i) from_q[i] = static_cast<float>(q[i]) * scale[i / k];
  using Format = minimt::WeightSource::Format;
  const std::vector<std::pair<minimt::WeightSource, const std::vector<float>*>> cases = {
      {{Format::kF16, halves.data(), nullptr}, &from_half},
      {{Format::kBf16, brains.data(), nullptr}, &from_brain},
      {{Format::kI8, q.data(), scale.data()}, &from_q}};
  for (LinearKernel kernel : kernels_here())
    for (const auto& [source, floats] : cases) {
      std::vector<float> a(PackedMatrix::floats_needed(n, k)), b(a.size());
      PackedMatrix(source, n, k, a.data(), kernel);
      PackedMatrix(floats->data(), n, k, b.data(), kernel);
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
}
