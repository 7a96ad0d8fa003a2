// Numeric building blocks against values worked out by hand (or with one line of libm), and
// gemm/linear against plain loops.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "minimt/engine/ops.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::kInf;

namespace {

std::vector<float> random_matrix(std::mt19937& rng, size_t count) {
  return minimt::test::uniform_values(rng, count, -1.0f, 1.0f);
}

}  // namespace

TEST_CASE("ops: softmax by hand", "[ops]") {
  // e^1 : e^2 : e^3 normalised = 1 : e : e^2 over 1 + e + e^2 = 11.107337927...
  std::vector<float> row = {1.0f, 2.0f, 3.0f};
  ops::softmax(row.data(), 3);
  CHECK(row[0] == Approx(0.09003057).margin(1e-7));
  CHECK(row[1] == Approx(0.24472847).margin(1e-7));
  CHECK(row[2] == Approx(0.66524096).margin(1e-7));

  // Equal scores give equal weights; a shift changes nothing.
  std::vector<float> equal = {5.0f, 5.0f, 5.0f, 5.0f};
  ops::softmax(equal.data(), 4);
  for (float v : equal) CHECK(v == Approx(0.25).margin(1e-7));

  // Large scores do not overflow: softmax(1000, 1001) = (1/(1+e), e/(1+e)).
  std::vector<float> large = {1000.0f, 1001.0f};
  ops::softmax(large.data(), 2);
  CHECK(large[0] == Approx(0.26894142).margin(1e-7));
  CHECK(large[1] == Approx(0.73105858).margin(1e-7));

  // -infinity (a masked score) gives exactly 0, and the rest still sums to 1.
  std::vector<float> masked = {0.0f, -kInf, std::log(3.0f), -kInf};
  ops::softmax(masked.data(), 4);
  CHECK(masked[0] == Approx(0.25).margin(1e-7));
  CHECK(masked[1] == 0.0f);
  CHECK(masked[2] == Approx(0.75).margin(1e-7));
  CHECK(masked[3] == 0.0f);

  std::vector<float> single = {-3.0f};
  ops::softmax(single.data(), 1);
  CHECK(single[0] == 1.0f);
}

TEST_CASE("ops: layer_norm by hand (biased variance, eps inside the root)", "[ops]") {
  // Row [1, 2, 3, 4]: mean 2.5, variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25,
  // so the normalised row is [-1.5, -0.5, 0.5, 1.5] / sqrt(1.25) = [-3, -1, 1, 3] / sqrt(5).
  // Row [1, -1]: mean 0, variance 1; with eps = 3 the root is sqrt(1 + 3) = 2, so [0.5, -0.5]
  // (eps outside the root would give 1/(1+3); the unbiased variance 2 would give 1/sqrt(5)).
  std::vector<float> weight = {1, 1, 1, 1}, bias = {0, 0, 0, 0};
  LayerNormWeights plain{weight.data(), bias.data()};
  std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40};  // two rows: LN is scale-invariant
  ops::layer_norm(plain, x.data(), 2, 4, 0.0f);
  const double r5 = 1.0 / std::sqrt(5.0);
  for (int row = 0; row < 2; ++row) {
    CHECK(x[row * 4 + 0] == Approx(-3 * r5).margin(1e-6));
    CHECK(x[row * 4 + 1] == Approx(-1 * r5).margin(1e-6));
    CHECK(x[row * 4 + 2] == Approx(1 * r5).margin(1e-6));
    CHECK(x[row * 4 + 3] == Approx(3 * r5).margin(1e-6));
  }

  std::vector<float> pair = {1.0f, -1.0f};
  std::vector<float> w2 = {1, 1}, b2 = {0, 0};
  ops::layer_norm(LayerNormWeights{w2.data(), b2.data()}, pair.data(), 1, 2, 3.0f);
  CHECK(pair[0] == Approx(0.5).margin(1e-7));
  CHECK(pair[1] == Approx(-0.5).margin(1e-7));

  // Weight and bias apply per column after normalising: y = n * w + b.
  std::vector<float> scaled = {1, 2, 3, 4};
  std::vector<float> w3 = {2, -1, 0, 0.5f}, b3 = {0, 1, 7, -1};
  ops::layer_norm(LayerNormWeights{w3.data(), b3.data()}, scaled.data(), 1, 4, 0.0f);
  CHECK(scaled[0] == Approx(-6 * r5).margin(1e-6));
  CHECK(scaled[1] == Approx(r5 + 1).margin(1e-6));
  CHECK(scaled[2] == Approx(7).margin(1e-6));
  CHECK(scaled[3] == Approx(1.5 * r5 - 1).margin(1e-6));

  // A constant row normalises to 0 (then the bias): variance 0 plus eps.
  std::vector<float> flat = {3, 3, 3, 3};
  ops::layer_norm(LayerNormWeights{w3.data(), b3.data()}, flat.data(), 1, 4, 1e-5f);
  CHECK(flat == std::vector<float>{0, 1, 7, -1});
}

TEST_CASE("ops: activations: relu, gelu (erf form), silu", "[ops]") {
  std::vector<float> relu = {-2.0f, -0.0f, 0.0f, 0.5f, 3.0f};
  ops::activate(Activation::kRelu, relu.data(), 5);
  CHECK(relu == std::vector<float>{0.0f, 0.0f, 0.0f, 0.5f, 3.0f});

  // gelu(x) = x * Phi(x) = x/2 * (1 + erf(x / sqrt 2)). Phi(1) = 0.841344746, Phi(2) =
  // 0.977249868, Phi(-1) = 0.158655254. The tanh approximation gives gelu(1) = 0.841191990,
  // 1.5e-4 away, so these margins tell the two forms apart.
  std::vector<float> gelu = {1.0f, 2.0f, -1.0f, 0.0f, -6.0f};
  ops::activate(Activation::kGelu, gelu.data(), 5);
  CHECK(gelu[0] == Approx(0.841344746).margin(1e-6));
  CHECK(gelu[1] == Approx(1.954499736).margin(1e-6));
  CHECK(gelu[2] == Approx(-0.158655254).margin(1e-6));
  CHECK(gelu[3] == 0.0f);
  CHECK(gelu[4] == Approx(-6.0 * 9.8658765e-10).margin(1e-8));

  // silu(x) = x * sigmoid(x): silu(1) = 1/(1 + e^-1) = 0.731058579, silu(-2) = -2/(1 + e^2).
  std::vector<float> silu = {1.0f, -2.0f, 0.0f, 20.0f};
  ops::activate(Activation::kSilu, silu.data(), 4);
  CHECK(silu[0] == Approx(0.731058579).margin(1e-6));
  CHECK(silu[1] == Approx(-0.238405844).margin(1e-6));
  CHECK(silu[2] == 0.0f);
  CHECK(silu[3] == Approx(20.0).margin(1e-5));
}

TEST_CASE("ops: sinusoidal positions are interleaved sin/cos and added", "[ops]") {
  // P[pos][2i] = sin(pos / 10000^(2i/d)), P[pos][2i+1] = cos(same).
  std::vector<float> zero(6, 0.0f);
  ops::add_sinusoidal_position(0, 6, zero.data());
  CHECK(zero == std::vector<float>{0, 1, 0, 1, 0, 1});

  // d = 6, pos = 3: the angles are 3, 3 / 10000^(1/3) = 3 / 21.5443469 and 3 / 10000^(2/3)
  // = 3 / 464.158883.
  std::vector<float> row(6, 1.0f);  // added to, not overwritten
  ops::add_sinusoidal_position(3, 6, row.data());
  const double a[3] = {3.0, 3.0 / 21.5443469003, 3.0 / 464.158883361};
  for (int i = 0; i < 3; ++i) {
    INFO("i = " << i);
    CHECK(row[2 * i] == Approx(1.0 + std::sin(a[i])).margin(1e-6));
    CHECK(row[2 * i + 1] == Approx(1.0 + std::cos(a[i])).margin(1e-6));
  }
  CHECK(row[0] == Approx(1.0 + 0.14112001).margin(1e-6));  // sin 3
  CHECK(row[1] == Approx(1.0 - 0.98999250).margin(1e-6));  // cos 3

  // An odd width ends with a sine: d = 5 has angles pos, pos/10000^(2/5), pos/10000^(4/5).
  std::vector<float> odd(5, 0.0f);
  ops::add_sinusoidal_position(7, 5, odd.data());
  CHECK(odd[4] == Approx(std::sin(7.0 / std::pow(10000.0, 0.8))).margin(1e-6));
  CHECK(odd[3] == Approx(std::cos(7.0 / std::pow(10000.0, 0.4))).margin(1e-6));

  // A far position is still accurate (the angle is computed in double).
  std::vector<float> far(4, 0.0f);
  ops::add_sinusoidal_position(1000, 4, far.data());
  CHECK(far[0] == Approx(std::sin(1000.0)).margin(1e-6));
  CHECK(far[3] == Approx(std::cos(10.0)).margin(1e-6));
}

TEST_CASE("ops: argmax takes the lowest id on a tie", "[ops]") {
  std::vector<float> tie = {1.0f, 3.0f, 3.0f, 2.0f};
  CHECK(ops::argmax(tie.data(), 4) == 1);
  std::vector<float> all_equal = {0.5f, 0.5f, 0.5f};
  CHECK(ops::argmax(all_equal.data(), 3) == 0);
  std::vector<float> last = {-5.0f, -4.0f, -1.0f};
  CHECK(ops::argmax(last.data(), 3) == 2);
  std::vector<float> with_inf = {-kInf, -kInf, -7.0f};
  CHECK(ops::argmax(with_inf.data(), 3) == 2);
  std::vector<float> one = {9.0f};
  CHECK(ops::argmax(one.data(), 1) == 0);
}

TEST_CASE("ops: log_sum_exp is exact and stable", "[ops]") {
  std::vector<float> two = {0.0f, 0.0f};
  CHECK(ops::log_sum_exp(two.data(), 2) == Approx(std::log(2.0)).margin(1e-6));
  std::vector<float> big = {1000.0f, 1000.0f, 1000.0f};
  CHECK(ops::log_sum_exp(big.data(), 3) == Approx(1000.0 + std::log(3.0)).margin(1e-3));
  std::vector<float> mixed = {1.0f, 2.0f, 3.0f, -kInf};
  CHECK(ops::log_sum_exp(mixed.data(), 4) ==
        Approx(std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0))).margin(1e-6));
}

TEST_CASE("ops: add_in_place adds element-wise", "[ops]") {
  std::vector<float> x = {1, 2, 3}, y = {0.5f, -2, 10};
  ops::add_in_place(x.data(), y.data(), 3);
  CHECK(x == std::vector<float>{1.5f, 0.0f, 13.0f});
}

TEST_CASE("ops: gemm matches plain loops for every layout", "[ops]") {
  std::mt19937 rng(7);
  struct Shape3 {
    int m, n, k;
  };
  for (Shape3 s :
       {Shape3{1, 1, 1}, Shape3{3, 5, 4}, Shape3{17, 9, 33}, Shape3{1, 64, 48}, Shape3{40, 3, 1}}) {
    for (bool transposed : {false, true}) {
      for (float beta : {0.0f, 1.0f, -0.5f}) {
        const float alpha = 0.75f;
        // Leading dimensions wider than the matrices: only the first columns are read/written.
        const int lda = s.k + 2, ldb = (transposed ? s.k : s.n) + 3, ldc = s.n + 1;
        auto a = random_matrix(rng, static_cast<size_t>(s.m) * lda);
        auto b = random_matrix(rng, static_cast<size_t>(transposed ? s.n : s.k) * ldb);
        auto c = random_matrix(rng, static_cast<size_t>(s.m) * ldc);
        std::vector<float> expected = c;
        for (int i = 0; i < s.m; ++i)
          for (int j = 0; j < s.n; ++j) {
            double sum = 0.0;
            for (int p = 0; p < s.k; ++p)
              sum += static_cast<double>(a[i * lda + p]) *
                     (transposed ? b[j * ldb + p] : b[p * ldb + j]);
            expected[i * ldc + j] =
                static_cast<float>(alpha * sum + beta * static_cast<double>(c[i * ldc + j]));
          }
        const uint64_t before = ops::gemm_flops();
        ops::gemm(s.m, s.n, s.k, alpha, a.data(), lda, b.data(), ldb, transposed, beta, c.data(),
                  ldc);
        INFO("m " << s.m << " n " << s.n << " k " << s.k << " transposed " << transposed << " beta "
                  << beta);
        CHECK(ops::gemm_flops() - before == 2ull * s.m * s.n * s.k);
        CHECK_ALL_CLOSE(c.data(), expected.data(), c.size(), 1e-5);
      }
    }
  }
}

TEST_CASE("ops: linear computes x W^T + b", "[ops]") {
  // By hand: W = [[1, 2], [3, 4], [5, 6]] (out 3, in 2), b = [0.5, -1, 0], x = [[1, -1], [2, 0]]
  // -> row 0: [1-2, 3-4, 5-6] + b = [-0.5, -2, -1]; row 1: [2, 6, 10] + b = [2.5, 5, 10].
  std::vector<float> w = {1, 2, 3, 4, 5, 6}, b = {0.5f, -1, 0}, x = {1, -1, 2, 0};
  std::vector<float> y(6, 99.0f);
  ops::linear(Linear{w.data(), b.data(), 3, 2}, x.data(), 2, y.data());
  CHECK(y == std::vector<float>{-0.5f, -2, -1, 2.5f, 5, 10});

  // Random sizes against loops.
  std::mt19937 rng(11);
  const int rows = 7, in = 19, out = 13;
  auto weight = random_matrix(rng, out * in), bias = random_matrix(rng, out),
       input = random_matrix(rng, rows * in);
  std::vector<float> got(rows * out, 0.0f), expected(rows * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double sum = bias[o];
      for (int i = 0; i < in; ++i)
        sum += static_cast<double>(input[r * in + i]) * weight[o * in + i];
      expected[r * out + o] = static_cast<float>(sum);
    }
  ops::linear(Linear{weight.data(), bias.data(), out, in}, input.data(), rows, got.data());
  CHECK_ALL_CLOSE(got.data(), expected.data(), got.size(), 1e-5);
}
