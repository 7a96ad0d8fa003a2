#include "minimt/engine/attribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/backward/dense_model.h"
#include "engine/backward/gradient_pass.h"
#include "engine/backward/occlusion.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

// At most this many floats in one of the backward's widest buffers ([V*T*N, max(d_ff, d)]):
// the steps of integrated gradients go through in chunks of that size.
constexpr int64_t kChunkFloats = int64_t{1} << 25;  // 128 MiB

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float dot(const float* a, const float* b, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(sum);
}

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (int id : ids)
    if (id < 0 || id >= vocab)
      throw Error(std::string("attribution: ") + what + " id " + std::to_string(id) +
                  " is outside the vocabulary (" + std::to_string(vocab) + ")");
}

bool wants(const AttributionRequest& r, AttributionMethod m) {
  return std::find(r.methods.begin(), r.methods.end(), m) != r.methods.end();
}

// The per-row numbers of a gradient g [T][N][d] against the rows e [N][d]: value(e_i, g_ti),
// into [T][N] (target: only i <= t; the rest stays as it is).
template <typename Value>
void per_row(const float* g, const float* table, const std::vector<int>& ids, int T, int d,
             bool causal, Value&& value, std::vector<float>& out) {
  const int n = static_cast<int>(ids.size());
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < (causal ? t + 1 : n); ++i)
      out[static_cast<size_t>(t) * n + i] =
          value(table + static_cast<size_t>(ids[i]) * d, g + (static_cast<size_t>(t) * n + i) * d);
}

// sum[t][i] += w e_i . g_ti over the gradient g [T][N][d] (target: i <= t only), in double.
void accumulate(const float* g, const float* table, const std::vector<int>& ids, int T, int d,
                bool causal, double w, std::vector<double>& sum) {
  const int n = static_cast<int>(ids.size());
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < (causal ? t + 1 : n); ++i) {
      const float* e = table + static_cast<size_t>(ids[i]) * d;
      const float* row = g + (static_cast<size_t>(t) * n + i) * d;
      double dot = 0.0;
      for (int k = 0; k < d; ++k) dot += static_cast<double>(e[k]) * row[k];
      sum[static_cast<size_t>(t) * n + i] += w * dot;
    }
}

}  // namespace

void integration_rule(IgRule rule, int steps, std::vector<double>& alphas,
                      std::vector<double>& weights) {
  alphas.assign(steps, 0.0);
  weights.assign(steps, 1.0 / steps);
  if (rule == IgRule::kRiemannRight) {
    for (int k = 0; k < steps; ++k) alphas[k] = static_cast<double>(k + 1) / steps;
    return;
  }
  // Gauss-Legendre: the roots of P_m by Newton's method, mapped from [-1, 1] to [0, 1].
  for (int i = 0; i < steps; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / (steps + 0.5)), derivative = 1.0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      double p1 = 1.0, p2 = 0.0;
      for (int j = 1; j <= steps; ++j) {
        const double p3 = p2;
        p2 = p1;
        p1 = ((2.0 * j - 1.0) * z * p2 - (j - 1.0) * p3) / j;
      }
      derivative = steps * (z * p1 - p2) / (z * z - 1.0);
      const double previous = z;
      z = previous - p1 / derivative;
      if (std::abs(z - previous) < 1e-15) break;
    }
    alphas[steps - 1 - i] = (z + 1.0) / 2.0;  // ascending
    weights[steps - 1 - i] = 1.0 / ((1.0 - z * z) * derivative * derivative);
  }
}

Attributor::Attributor(const Architecture& config, const ModelWeights& weights)
    : config_(config),
      weights_(weights),
      dense_(std::make_unique<backward::DenseModel>(config, weights)) {}

Attributor::~Attributor() = default;

AttributionResult Attributor::attribute(const AttributionRequest& request) const {
  const Architecture& c = config_;
  const int S = static_cast<int>(request.source.size());
  const int T = static_cast<int>(request.output.size()), d = c.d_model;
  if (static_cast<int>(request.decoder_input.size()) != T)
    throw Error("attribution: " + std::to_string(request.decoder_input.size()) +
                " decoder inputs for " + std::to_string(T) + " outputs");
  if (S > c.max_positions || T > c.max_positions)
    throw Error("attribution: a sequence passes max_positions (" + std::to_string(c.max_positions) +
                ")");
  if (request.ig_steps < 1) throw Error("attribution: ig_steps must be at least 1");
  check_ids(request.source, c.source_vocab_size, "source");
  check_ids(request.decoder_input, c.target_vocab_size, "decoder input");
  check_ids(request.output, c.target_vocab_size, "output");
  AttributionResult result;
  result.source_length = S;
  result.target_length = T;
  if (T == 0 || S == 0) return result;
  const backward::SentenceIds ids{&request.source, &request.decoder_input, &request.output};
  const HeadMask* mask = request.head_mask;
  const float* source_table = weights_.source_embeddings;
  const float* target_table = weights_.target_embeddings;
  const auto fresh = [&](AttributionMethod m) -> AttributionMap& {
    AttributionMap& map = result.maps[static_cast<int>(m)];
    map.present = true;
    map.source.assign(static_cast<size_t>(T) * S, 0.0f);
    map.target.assign(static_cast<size_t>(T) * T, kNaN);
    return map;
  };

  // The rows as they are: f_t, and the plain gradients.
  const bool plain = wants(request, AttributionMethod::kSaliency) ||
                     wants(request, AttributionMethod::kInputXGradient);
  backward::GradientPass one = backward::gradient_pass(*dense_, mask, ids, {1.0}, plain);
  result.log_probs = one.log_probs;
  const auto norm = [d](const float*, const float* g) { return std::sqrt(dot(g, g, d)); };
  const auto times = [d](const float* e, const float* g) { return dot(e, g, d); };
  if (wants(request, AttributionMethod::kSaliency)) {
    AttributionMap& map = fresh(AttributionMethod::kSaliency);
    per_row(one.source_grad.data(), source_table, request.source, T, d, false, norm, map.source);
    per_row(one.target_grad.data(), target_table, request.decoder_input, T, d, true, norm,
            map.target);
  }
  if (wants(request, AttributionMethod::kInputXGradient)) {
    AttributionMap& map = fresh(AttributionMethod::kInputXGradient);
    per_row(one.source_grad.data(), source_table, request.source, T, d, false, times, map.source);
    per_row(one.target_grad.data(), target_table, request.decoder_input, T, d, true, times,
            map.target);
  }
  one.source_grad.clear();
  one.target_grad.clear();

  if (wants(request, AttributionMethod::kIntegratedGradients)) {
    AttributionMap& map = fresh(AttributionMethod::kIntegratedGradients);
    std::vector<double> alphas, weights;
    integration_rule(request.ig_rule, request.ig_steps, alphas, weights);
    const int64_t width = std::max({c.d_ff, c.d_model, c.attention_width(), 1});
    const int64_t per_variant = static_cast<int64_t>(T) * std::max(S, T) * width;
    const int chunk = static_cast<int>(std::max<int64_t>(1, kChunkFloats / per_variant));
    // sum_k w_k e_i . df_t/de_i at alpha_k, in double: the terms can be far larger than the sum
    std::vector<double> source_sum(static_cast<size_t>(T) * S, 0.0),
        target_sum(static_cast<size_t>(T) * T, 0.0);
    for (int first = 0; first < request.ig_steps; first += chunk) {
      const int last = std::min(request.ig_steps, first + chunk);
      const std::vector<double> step(alphas.begin() + first, alphas.begin() + last);
      const backward::GradientPass pass = backward::gradient_pass(*dense_, mask, ids, step, true);
      for (int k = first; k < last; ++k) {
        const size_t v = k - first;
        accumulate(pass.source_grad.data() + v * T * S * d, source_table, request.source, T, d,
                   false, weights[k], source_sum);
        accumulate(pass.target_grad.data() + v * T * T * d, target_table, request.decoder_input, T,
                   d, true, weights[k], target_sum);
      }
    }
    const backward::GradientPass zero = backward::gradient_pass(*dense_, mask, ids, {0.0}, false);
    map.completeness_gap.resize(T);
    for (int t = 0; t < T; ++t) {
      double sum = 0.0;
      for (int i = 0; i < S; ++i) {
        sum += source_sum[t * S + i];
        map.source[t * S + i] = static_cast<float>(source_sum[t * S + i]);
      }
      for (int j = 0; j <= t; ++j) {
        sum += target_sum[t * T + j];
        map.target[t * T + j] = static_cast<float>(target_sum[t * T + j]);
      }
      map.completeness_gap[t] =
          static_cast<float>(sum - (static_cast<double>(result.log_probs[t]) - zero.log_probs[t]));
    }
  }

  if (wants(request, AttributionMethod::kOcclusion))
    result.maps[static_cast<int>(AttributionMethod::kOcclusion)] =
        backward::occlusion(c, weights_, mask, ids);
  return result;
}

}  // namespace minimt
