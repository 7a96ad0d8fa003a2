// The probe (probe.h): what the encoder and decoder show at each named point, and that a probe
// wanting nothing is shown nothing, on a seeded random model.
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <tuple>

#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/probe.h"
#include "test_support.h"

using namespace minimt;

namespace {

// Wants what `wanted` says and keeps every view it is shown, by point, kind and layer.
struct ListeningProbe : Probe {
  bool wanted = true;
  int heads = 0;
  mutable int asked = 0;
  std::map<std::tuple<ProbePoint, AttentionKind, int>, std::vector<ProbeView>> seen;
  std::vector<std::vector<float>> weights;  // a copy of each kWeights view, [H][rows][keys]
  bool wants(ProbePoint, AttentionKind, int) const override {
    ++asked;
    return wanted;
  }
  void see(const ProbeView& view) override {
    seen[{view.point, view.kind, view.layer}].push_back(view);
    if (view.point == ProbePoint::kWeights)
      weights.emplace_back(view.data,
                           view.data + static_cast<size_t>(heads) * view.rows * view.keys);
  }
  const ProbeView& only(ProbePoint point, AttentionKind kind, int layer) {
    const auto& views = seen[{point, kind, layer}];
    REQUIRE(views.size() == 1);
    return views[0];
  }
};

}  // namespace

TEST_CASE("probe: each named point shown once per call, with its rows and keys", "[probe]") {
  auto m = test::random_model(test::small_config(), 41);
  const ModelConfig& c = m->config;
  std::mt19937 rng(42);
  const int S = 5;
  ListeningProbe probe;
  probe.heads = c.num_heads;
  Encoder encoder(c, m->weights);
  EncodedBatch encoded = encoder.forward({test::random_ids(rng, 3, c.source_vocab_size, true),
                                          test::random_ids(rng, S, c.source_vocab_size, true)},
                                         {nullptr, &probe});  // only the second sentence is probed
  CHECK(probe.only(ProbePoint::kInput, AttentionKind::kEncoder, -1).rows == S);
  for (int l = 0; l < c.encoder_layers; ++l) {
    for (ProbePoint point : {ProbePoint::kQueries, ProbePoint::kKeys, ProbePoint::kValues,
                             ProbePoint::kScores, ProbePoint::kWeights, ProbePoint::kHeadOutputs}) {
      const ProbeView& view = probe.only(point, AttentionKind::kEncoder, l);
      CHECK(view.rows == S);
      CHECK(view.first == 0);
    }
    CHECK(probe.only(ProbePoint::kWeights, AttentionKind::kEncoder, l).keys == S);
    CHECK(probe.only(ProbePoint::kLayerOutput, AttentionKind::kEncoder, l).rows == S);
    // The weights of each query sum to 1 over the sentence's own S keys.
    const std::vector<float>& weights = probe.weights.at(l);
    for (int row = 0; row < c.num_heads * S; ++row) {
      double sum = 0;
      for (int j = 0; j < S; ++j) sum += weights[static_cast<size_t>(row) * S + j];
      CHECK(sum == Approx(1.0).margin(1e-5));
    }
  }

  // The decoder: a run of 3 from position 0, then a step at position 3.
  probe.seen.clear();
  Decoder decoder(c, m->weights);
  std::vector<DecoderState> states = decoder.start(encoded, {nullptr, &probe});
  decoder.prefix({c.decoder_start_token, 4, 5}, states[1]);
  decoder.step({6}, {&states[1]});
  decoder.step({6}, {&states[0]});  // not probed
  const auto& inputs = probe.seen[{ProbePoint::kInput, AttentionKind::kDecoder, -1}];
  REQUIRE(inputs.size() == 2);
  CHECK(inputs[0].first == 0);
  CHECK(inputs[0].rows == 3);
  CHECK(inputs[0].keys == S);  // the source length
  CHECK(inputs[1].first == 3);
  CHECK(inputs[1].rows == 1);
  for (int l = 0; l < c.decoder_layers; ++l) {
    const auto& self = probe.seen[{ProbePoint::kWeights, AttentionKind::kDecoder, l}];
    REQUIRE(self.size() == 2);
    CHECK((self[0].rows == 3 && self[0].keys == 3 && self[0].causal));
    CHECK((self[1].rows == 1 && self[1].keys == 4 && self[1].first == 3));
    const auto& keys = probe.seen[{ProbePoint::kKeys, AttentionKind::kDecoder, l}];
    REQUIRE(keys.size() == 2);  // each new key once
    CHECK((keys[0].first == 0 && keys[0].rows == 3 && keys[1].first == 3 && keys[1].rows == 1));
    const auto& cross = probe.seen[{ProbePoint::kWeights, AttentionKind::kCross, l}];
    REQUIRE(cross.size() == 2);
    CHECK((cross[0].keys == S && !cross[0].causal && cross[1].rows == 1));
    // The encoder's keys are new to the first position only.
    const auto& cross_keys = probe.seen[{ProbePoint::kKeys, AttentionKind::kCross, l}];
    REQUIRE(cross_keys.size() == 1);
    CHECK((cross_keys[0].first == 0 && cross_keys[0].rows == S));
    CHECK(probe.seen[{ProbePoint::kLayerOutput, AttentionKind::kDecoder, l}].size() == 2);
  }
}

TEST_CASE("probe: one that wants nothing is asked, shown nothing, and changes no logit",
          "[probe]") {
  auto m = test::random_model(test::small_config(), 43);
  const ModelConfig& c = m->config;
  std::mt19937 rng(44);
  const std::vector<int> source = test::random_ids(rng, 4, c.source_vocab_size, true);
  const std::vector<int> tokens = {c.decoder_start_token, 4, 5, 6};
  ListeningProbe deaf, listening;
  deaf.wanted = false;
  std::vector<std::vector<float>> logits;
  for (Probe* probe : {static_cast<Probe*>(nullptr), static_cast<Probe*>(&deaf),
                       static_cast<Probe*>(&listening)}) {
    Encoder encoder(c, m->weights);
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoder.forward({source}, {probe}), {probe});
    logits.push_back(decoder.prefix(tokens, states[0]));
  }
  CHECK(deaf.asked > 0);
  CHECK(deaf.seen.empty());
  CHECK(!listening.seen.empty());
  CHECK(logits[1] == logits[0]);
  CHECK(logits[2] == logits[0]);
}
