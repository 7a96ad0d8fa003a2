// Search on seeded random models: beam size 1 is greedy, beam hypotheses are ranked and scored
// as teacher forcing scores them, a sentence's result does not depend on its batch, prefixes
// are kept, and the sampler draws from the distribution its options describe.
#include <algorithm>
#include <cmath>
#include <map>

#include "decoder_test_models.h"
#include "minimt/engine/sampler.h"
#include "minimt/engine/teacher_forcing.h"

namespace {

struct Run {
  std::unique_ptr<TestModel> model;
  std::vector<std::vector<int>> sources;
};

Run make_run(const Variant& v, unsigned seed, int sentences) {
  Run run{variant_model(v, seed), {}};
  std::mt19937 rng(seed);
  for (int b = 0; b < sentences; ++b)
    run.sources.push_back(
        random_ids(rng, 2 + (b * 5) % 9, run.model->config.source_vocab_size, true));
  return run;
}

SearchOptions options_for(const ModelConfig& c, int beam, int n_best, float penalty) {
  SearchOptions options;
  options.start_token = c.decoder_start_token;
  options.eos = c.special.eos;
  options.max_length = 9;
  options.beam_size = beam;
  options.n_best = n_best;
  options.length_penalty = penalty;
  return options;
}

std::vector<std::vector<Hypothesis>> run_search(const Run& run,
                                                const std::vector<std::vector<int>>& sources,
                                                const SearchOptions& options,
                                                const std::vector<SearchRequest>& requests = {}) {
  const ModelConfig& c = run.model->config;
  Encoder encoder(c, run.model->weights);
  Decoder decoder(c, run.model->weights);
  std::vector<DecoderState> states = decoder.start(encoder.forward(sources));
  return search(decoder, states, requests, options, c.target_vocab_size);
}

// The log-probabilities teacher forcing gives each token of output, for sources[b].
std::vector<float> forced_log_probs(const Run& run, int b, const std::vector<int>& output) {
  const ModelConfig& c = run.model->config;
  Encoder encoder(c, run.model->weights);
  Decoder decoder(c, run.model->weights);
  std::vector<DecoderState> states = decoder.start(encoder.forward({run.sources[b]}));
  return teacher_force(decoder, {&states[0]}, {&output}, c.decoder_start_token, 0,
                       c.target_vocab_size)[0]
      .log_probs;
}

}  // namespace

TEST_CASE("search: beam size 1 is greedy search, token for token", "[search]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    Run run = make_run(v, 71, 4);
    const ModelConfig& c = run.model->config;
    auto beam_one = run_search(run, run.sources, options_for(c, 1, 1, 0.0f));
    Encoder encoder(c, run.model->weights);
    Decoder decoder(c, run.model->weights);
    std::vector<DecoderState> states = decoder.start(encoder.forward(run.sources));
    auto greedy = greedy_search(decoder, states, options_for(c, 1, 1, 0.0f), c.target_vocab_size);
    for (size_t b = 0; b < run.sources.size(); ++b) {
      REQUIRE(beam_one[b].size() == 1);
      CHECK(beam_one[b][0].tokens == greedy[b].tokens);
      CHECK(beam_one[b][0].log_probs == greedy[b].log_probs);
      // Greedy: each token is the arg-max, so no other token was more likely.
      for (float log_prob : greedy[b].log_probs) CHECK(log_prob <= 0.0f);
    }
  }
}

TEST_CASE("search: beam hypotheses are ranked, distinct and scored as teacher forcing does",
          "[search]") {
  for (const Variant& v : variants())
    for (float penalty : {0.0f, 0.6f, 1.0f}) {
      INFO(v.name << ", length penalty " << penalty);
      Run run = make_run(v, 83, 3);
      const ModelConfig& c = run.model->config;
      auto results = run_search(run, run.sources, options_for(c, 4, 4, penalty));
      for (size_t b = 0; b < results.size(); ++b) {
        const auto& list = results[b];
        REQUIRE(list.size() == 4);
        for (size_t r = 0; r < list.size(); ++r) {
          const Hypothesis& h = list[r];
          CHECK(h.tokens.size() == h.log_probs.size());
          CHECK(h.finished == (h.tokens.back() == c.special.eos));
          CHECK((h.finished || static_cast<int>(h.tokens.size()) == 9));
          if (r > 0) CHECK(ranking_score(list[r - 1], penalty) >= ranking_score(h, penalty));
          for (size_t s = 0; s < r; ++s) CHECK(list[s].tokens != h.tokens);
          // The formula, by hand: sum / length^A.
          double sum = 0;
          for (float x : h.log_probs) sum += x;
          CHECK(ranking_score(h, penalty) ==
                Approx(sum / std::pow(double(h.tokens.size()), penalty)).margin(1e-12));
          std::vector<float> forced = forced_log_probs(run, static_cast<int>(b), h.tokens);
          REQUIRE(forced.size() == h.log_probs.size());
          for (size_t t = 0; t < forced.size(); ++t)
            CHECK(forced[t] == Approx(h.log_probs[t]).margin(1e-5));
        }
      }
    }
}

TEST_CASE("search: a sentence's beams do not depend on the batch it runs in", "[search]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    Run run = make_run(v, 97, 5);
    const ModelConfig& c = run.model->config;
    const SearchOptions options = options_for(c, 3, 2, 0.5f);
    auto together = run_search(run, run.sources, options);
    for (size_t b = 0; b < run.sources.size(); ++b) {
      auto alone = run_search(run, {run.sources[b]}, options);
      REQUIRE(alone[0].size() == together[b].size());
      for (size_t r = 0; r < alone[0].size(); ++r) {
        CHECK(alone[0][r].tokens == together[b][r].tokens);
        for (size_t t = 0; t < alone[0][r].log_probs.size(); ++t)
          CHECK(std::abs(alone[0][r].log_probs[t] - together[b][r].log_probs[t]) <=
                batch_tolerance());
      }
    }
  }
}

TEST_CASE("search: a forced prefix starts every hypothesis, with its own log-probabilities",
          "[search]") {
  Run run = make_run(variants()[0], 101, 2);
  const ModelConfig& c = run.model->config;
  const std::vector<int> prefix = {4, 7, 5};
  std::vector<SearchRequest> requests = {{prefix, 0}, {{}, 0}};
  for (int beam : {1, 3}) {
    auto results = run_search(run, run.sources, options_for(c, beam, beam, 0.0f), requests);
    for (const Hypothesis& h : results[0]) {
      REQUIRE(h.tokens.size() >= prefix.size());
      CHECK(std::equal(prefix.begin(), prefix.end(), h.tokens.begin()));
      std::vector<float> forced = forced_log_probs(run, 0, h.tokens);
      for (size_t t = 0; t < forced.size(); ++t)
        CHECK(forced[t] == Approx(h.log_probs[t]).margin(1e-5));
    }
  }
  // A prefix longer than max_length is cut to it, and the hypothesis is not finished.
  SearchOptions short_options = options_for(c, 2, 1, 0.0f);
  short_options.max_length = 2;
  auto cut = run_search(run, run.sources, short_options, requests);
  CHECK(cut[0][0].tokens == std::vector<int>{4, 7});
  CHECK_FALSE(cut[0][0].finished);
}

TEST_CASE("sampler: draws follow softmax(logits / T) cut to top-k and top-p (chi-square)",
          "[search][sampling]") {
  const std::vector<float> logits = {1.0f, 2.5f, -0.5f, 2.5f, 0.3f, 1.8f, -3.0f};
  struct Case {
    float temperature;
    int top_k;
    float top_p;
  };
  for (Case k :
       {Case{1.0f, 0, 1.0f}, Case{0.7f, 4, 1.0f}, Case{1.3f, 0, 0.8f}, Case{0.5f, 5, 0.9f}}) {
    INFO("T " << k.temperature << ", top-k " << k.top_k << ", top-p " << k.top_p);
    // By hand: rank by logit (ties to the lower id), keep the k best, then the fewest whose
    // probability (after the top-k renormalization) reaches top_p.
    std::vector<int> order = {1, 3, 5, 0, 4, 2, 6};
    const size_t k_kept = k.top_k > 0 ? static_cast<size_t>(k.top_k) : order.size();
    std::vector<double> p;
    double total = 0;
    for (size_t i = 0; i < k_kept; ++i) total += std::exp(logits[order[i]] / k.temperature);
    double mass = 0;
    std::map<int, double> expected;
    for (size_t i = 0; i < k_kept && (i == 0 || mass < k.top_p); ++i) {
      const double share = std::exp(logits[order[i]] / k.temperature) / total;
      expected[order[i]] = share;
      mass += share;
    }
    for (auto& [id, share] : expected) share /= mass;

    TokenSampler sampler({true, k.temperature, k.top_k, k.top_p}, line_seed(12345, 1));
    const int draws = 40000;
    std::map<int, int> counts;
    for (int i = 0; i < draws; ++i) ++counts[sampler.draw(logits.data(), 7)];
    double chi_square = 0;
    for (auto& [id, count] : counts) CHECK(expected.count(id) == 1);  // nothing outside the cut
    for (auto& [id, share] : expected) {
      const double e = share * draws;
      chi_square += (counts[id] - e) * (counts[id] - e) / e;
    }
    // The 0.999 quantile of chi-square with at most 6 degrees of freedom is 22.46.
    CHECK(chi_square < 22.46);
  }
}

TEST_CASE("sampler: one generator per line; the same seed and line give the same draws",
          "[search][sampling]") {
  CHECK(line_seed(7, 1) == line_seed(7, 1));
  CHECK(line_seed(7, 1) != line_seed(7, 2));
  CHECK(line_seed(7, 1) != line_seed(8, 1));
  const std::vector<float> logits(50, 0.0f);  // uniform: every draw is as likely
  TokenSampler a({true, 1.0f, 0, 1.0f}, line_seed(7, 3)), b({true, 1.0f, 0, 1.0f}, line_seed(7, 3));
  TokenSampler other({true, 1.0f, 0, 1.0f}, line_seed(7, 4));
  std::vector<int> from_a, from_b, from_other;
  for (int i = 0; i < 20; ++i) {
    from_a.push_back(a.draw(logits.data(), 50));
    from_b.push_back(b.draw(logits.data(), 50));
    from_other.push_back(other.draw(logits.data(), 50));
  }
  CHECK(from_a == from_b);
  CHECK(from_a != from_other);
}
