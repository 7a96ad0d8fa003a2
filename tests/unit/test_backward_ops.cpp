// The backward of each op (backward_ops.h, attention_backward.h, the feed-forward of
// engine/backward/tape.h) against central finite differences of the engine's own forward op:
// for a loss L = sum(c * y) with random c, dL/dx from the backward equals (L(x + h) - L(x - h))
// / 2h element by element, within the float32 noise of the difference.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "engine/backward/tape.h"
#include "minimt/engine/attention.h"
#include "minimt/engine/attention_backward.h"
#include "minimt/engine/backward_ops.h"
#include "minimt/engine/layers.h"
#include "minimt/engine/ops.h"
#include "test_support.h"

using namespace minimt;

namespace {

std::vector<float> normal(std::mt19937& rng, size_t count, float scale = 1.0f) {
  std::normal_distribution<float> draw(0.0f, scale);
  std::vector<float> v(count);
  for (float& x : v) x = draw(rng);
  return v;
}

double weighted_sum(const std::vector<float>& c, const float* y) {
  double sum = 0.0;
  for (size_t i = 0; i < c.size(); ++i) sum += static_cast<double>(c[i]) * y[i];
  return sum;
}

// (loss(x + h) - loss(x - h)) / 2h, x one element of what loss reads.
template <typename Loss>
double central(Loss&& loss, float& x, float h = 1e-2f) {
  const float keep = x;
  x = keep + h;
  const double up = loss();
  x = keep - h;
  const double down = loss();
  x = keep;
  return (up - down) / (2.0 * h);
}

// The backward's gradient against finite differences of loss over every element of x.
template <typename Loss>
void check_gradient(const char* what, std::vector<float>& x, const float* gradient, Loss&& loss,
                    float h = 1e-2f) {
  for (size_t i = 0; i < x.size(); ++i) {
    const double numeric = central(loss, x[i], h);
    INFO(what << " element " << i);
    CHECK(gradient[i] == Approx(numeric).margin(2e-3).epsilon(1e-2));
  }
}

}  // namespace

TEST_CASE("backward: linear against finite differences", "[backward]") {
  std::mt19937 rng(1);
  const int rows = 3, in = 5, out = 4;
  std::vector<float> w = normal(rng, out * in), b = normal(rng, out), x = normal(rng, rows * in);
  std::vector<float> c = normal(rng, rows * out), y(rows * out), dx(rows * in);
  const Linear layer{w.data(), b.data(), out, in};
  const auto loss = [&] {
    ops::linear(layer, x.data(), rows, y.data());
    return weighted_sum(c, y.data());
  };
  backward::linear(w.data(), out, in, c.data(), rows, dx.data());
  check_gradient("linear", x, dx.data(), loss);
}

TEST_CASE("backward: layer norm and RMS norm against finite differences", "[backward]") {
  std::mt19937 rng(2);
  const int dim = 7;
  for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm}) {
    std::vector<float> w = normal(rng, dim), b = normal(rng, dim), x = normal(rng, dim);
    std::vector<float> c = normal(rng, dim), y(dim), xhat(dim), dx(dim);
    const LayerNormWeights norm{w.data(), kind == NormKind::kLayerNorm ? b.data() : nullptr};
    const float eps = 1e-5f;
    const auto loss = [&] {
      std::copy(x.begin(), x.end(), y.begin());
      if (kind == NormKind::kLayerNorm)
        ops::layer_norm(norm, y.data(), 1, dim, eps);
      else
        ops::rms_norm(norm, y.data(), 1, dim, eps);
      return weighted_sum(c, y.data());
    };
    float rstd = 0.0f;
    backward::norm_statistics(kind, x.data(), dim, eps, xhat.data(), &rstd);
    backward::norm(kind, xhat.data(), rstd, w.data(), dim, c.data(), dx.data());
    check_gradient(kind == NormKind::kLayerNorm ? "layer norm" : "rms norm", x, dx.data(), loss,
                   1e-3f);
  }
}

TEST_CASE("backward: softmax with a causal mask against finite differences", "[backward]") {
  std::mt19937 rng(3);
  const int length = 6, visible = 4;  // the last two keys masked: -infinity, weight 0
  std::vector<float> x = normal(rng, length), c = normal(rng, length), y(length), dx(length);
  const auto forward = [&] {
    std::copy(x.begin(), x.end(), y.begin());
    std::fill(y.begin() + visible, y.end(), -test::kInf);
    ops::softmax(y.data(), length);
    return weighted_sum(c, y.data());
  };
  forward();
  backward::softmax(y.data(), c.data(), length, dx.data());
  x.resize(visible);  // finite differences over the visible scores only
  check_gradient("softmax", x, dx.data(), forward, 1e-3f);
  CHECK(dx[visible] == 0.0f);
  CHECK(dx[visible + 1] == 0.0f);
}

TEST_CASE("backward: relu, gelu, gelu_tanh and silu against finite differences", "[backward]") {
  std::mt19937 rng(4);
  for (Activation a :
       {Activation::kRelu, Activation::kGelu, Activation::kGeluTanh, Activation::kSilu}) {
    std::vector<float> x = normal(rng, 16, 2.0f), c = normal(rng, 16), y(16), dx(16);
    for (float& v : x)
      if (std::abs(v) < 0.05f) v = 0.5f;  // relu's kink: no finite difference there
    const auto loss = [&] {
      std::copy(x.begin(), x.end(), y.begin());
      ops::activate(a, y.data(), 16);
      return weighted_sum(c, y.data());
    };
    backward::activation(a, x.data(), c.data(), 16, dx.data());
    check_gradient(to_string(a), x, dx.data(), loss, 1e-3f);
  }
}

TEST_CASE("backward: log-softmax of the final logits against finite differences", "[backward]") {
  std::mt19937 rng(5);
  const int vocab = 9, target = 4;
  std::vector<float> z = normal(rng, vocab, 3.0f), dz(vocab);
  const float f = backward::log_softmax_target(z.data(), vocab, target, dz.data());
  const auto loss = [&] {
    return static_cast<double>(z[target]) - ops::log_sum_exp(z.data(), vocab);
  };
  CHECK(f == Approx(loss()).margin(1e-6));
  check_gradient("log_softmax", z, dz.data(), loss, 1e-3f);
}

TEST_CASE("backward: the feed-forward, plain and gated, against finite differences", "[backward]") {
  std::mt19937 rng(6);
  for (bool gated : {false, true}) {
    Architecture c;
    c.d_model = 4;
    c.d_ff = 6;
    c.activation = gated ? Activation::kGeluTanh : Activation::kGelu;
    c.feed_forward = gated ? FeedForwardKind::kGated : FeedForwardKind::kStandard;
    const int rows = 2, d = c.d_model, f = c.d_ff;
    std::vector<float> w1 = normal(rng, f * d), b1 = normal(rng, f), wg = normal(rng, f * d);
    std::vector<float> w2 = normal(rng, d * f), b2 = normal(rng, d), x = normal(rng, rows * d);
    backward::DenseLayer layer;
    layer.fc1 = {w1.data(), b1.data(), f, d};
    layer.fc1_linear = {wg.data(), nullptr, f, d};
    layer.fc2 = {w2.data(), b2.data(), d, f};
    const Linear fc1{w1.data(), b1.data(), f, d}, fc1_linear{wg.data(), nullptr, f, d},
        fc2{w2.data(), b2.data(), d, f};
    // Two seeds on one forward: gradient rows [B=2][N=2][d].
    const std::vector<float> c0 = normal(rng, rows * d), c1 = normal(rng, rows * d);
    std::vector<float> y(rows * d), dout(c0), dx(2 * rows * d);
    dout.insert(dout.end(), c1.begin(), c1.end());
    LayerScratch scratch;
    backward::FeedForwardTape tape;
    backward::Scratch z;
    backward::feed_forward_forward(c, layer, x.data(), rows, tape, y.data());
    backward::feed_forward_backward(c, layer, tape, {1, 2, rows}, dout.data(), dx.data(), z);
    for (int seed = 0; seed < 2; ++seed) {
      const std::vector<float>& weights = seed ? c1 : c0;
      const auto loss = [&] {
        feed_forward(c, fc1, fc1_linear, fc2, x.data(), rows, scratch, y.data());
        return weighted_sum(weights, y.data());
      };
      check_gradient(gated ? "gated feed-forward" : "feed-forward", x, dx.data() + seed * rows * d,
                     loss, 1e-3f);
    }
  }
}
