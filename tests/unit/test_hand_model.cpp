// The hand-written model in tests/fixtures/hand-model: d_model 4, 2 heads (head_dim 2), d_ff 3,
// one encoder and one decoder layer, post-norm, learned positions, unscaled embeddings, gelu,
// tied output with final_logits_bias, 8 tokens (<pad> <unk> <s> </s> a b \u2581 c), inline
// weights in config.json.
//
// Two kinds of expected values, neither from minimt:
//  - facts derived on paper from the chosen weights (the derivations are next to the checks);
//  - full encoder outputs, attention matrices and logits for a fixed source and decoder input,
//    computed by the PyTorch reference (tools/reference/pytorch_reference, float64) and stored
//    in expected.json by tests/fixtures/hand-model/make_expected.py.
#include <catch2/catch.hpp>
#include <cmath>

#include "minimt/app/translate/translator.h"
#include "minimt/engine/attention_recorder.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/search.h"
#include "minimt/model/model.h"
#include "minimt/model/weight_binding.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::empty_record;
using minimt::test::fixture_path;
using minimt::test::json;

namespace {

struct HandModel {
  std::string path = fixture_path("hand-model/config.json");
  ModelConfig config;
  TensorStore store;
  ModelWeights weights;
  json expected;
  std::vector<int> source, decoder_input;
};

std::unique_ptr<HandModel> load_hand_model() {
  auto hand = std::make_unique<HandModel>();
  hand->config = ModelConfig::load(hand->path);
  read_inline_tensors(hand->config.inline_weights, hand->path, hand->store);
  hand->weights = bind_weights(hand->config, hand->store, hand->path);
  hand->expected = minimt::test::read_json(fixture_path("hand-model/expected.json"));
  hand->source = hand->expected["source_ids"].get<std::vector<int>>();
  hand->decoder_input = hand->expected["decoder_input"].get<std::vector<int>>();
  return hand;
}

// Every number of a nested JSON array, in row-major order.
void flatten(const json& value, std::vector<float>& out) {
  if (value.is_array())
    for (const auto& item : value) flatten(item, out);
  else
    out.push_back(value.get<float>());
}

std::vector<float> flat(const json& value) {
  std::vector<float> out;
  flatten(value, out);
  return out;
}

// Runs the encoder on the fixed source and feeds the fixed decoder input one token at a time
// (teacher forcing through the cache), recording attention; returns the logits of every step.
std::vector<float> run_steps(HandModel& hand, AttentionRecord& record, EncodedBatch& encoded) {
  AttentionRecorder recorder(record, hand.config, hand.weights);
  Encoder encoder(hand.config, hand.weights);
  encoded = encoder.forward({hand.source}, {&recorder});
  Decoder decoder(hand.config, hand.weights);
  std::vector<DecoderState> states = decoder.start(encoded, {&recorder});
  std::vector<float> logits;
  for (int token : hand.decoder_input) {
    const std::vector<float>& row = decoder.step({token}, {&states[0]});
    logits.insert(logits.end(), row.begin(), row.begin() + hand.config.target_vocab_size);
  }
  return logits;
}

}  // namespace

TEST_CASE("hand model: encoder attention is exactly uniform when q_proj is zero", "[hand]") {
  // encoder.layers.0.self_attn.q_proj has weight 0 and bias 0, so every query is the zero
  // vector and every score q.k / sqrt(2) is 0: softmax of S equal scores is 1/S in every row,
  // whatever the keys. The source "ab" is [\u2581, a, b, </s>], S = 4, so every weight is 1/4.
  auto hand = load_hand_model();
  REQUIRE(hand->source == std::vector<int>{6, 4, 5, 3});
  AttentionRecord record = AttentionRecord::for_sentence(hand->config, 4);
  AttentionRecorder recorder(record, hand->config, hand->weights);
  Encoder encoder(hand->config, hand->weights);
  encoder.forward({hand->source}, {&recorder});
  REQUIRE(record.encoder_self.size() == 1u * 2 * 4 * 4);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        INFO("head " << h << " row " << i << " column " << j);
        CHECK(record.encoder(0, h, i, j) == Approx(0.25).margin(1e-7));
      }
}

TEST_CASE("hand model: decoder self-attention of head 0 is a softmax worked on paper",
          "[hand][mask]") {
  // Post-norm, so the first sublayer reads the raw embedding x_j = E[token_j] + P[j] (no
  // sqrt(d) scaling). Decoder self_attn.q_proj rows 0-1 (head 0) are zero with bias [1, 0], so
  // head 0's query is [1, 0] at every position; k_proj row 0 is [1, 0, 0, 0] with bias 0, so
  // key j's first entry is x_j[0]. Head 0's score for key j is therefore x_j[0] / sqrt(2).
  // The decoder input is [<s>, b, \u2581, ...]:
  //   x_0[0] = E[2][0] + P[0][0] =  0.3 + -0.3 =  0
  //   x_1[0] = E[5][0] + P[1][0] =  0.6 +  0.4 =  1
  //   x_2[0] = E[6][0] + P[2][0] = -0.8 + -0.2 = -1
  // With a = e^(1/sqrt 2) = 2.0281150:
  //   row 0: [1]                                       (one visible key)
  //   row 1: softmax(0, 1/sqrt2)        = [1, a] / (1 + a)          = [0.330236, 0.669764]
  //   row 2: softmax(0, 1/sqrt2, -1/sqrt2) = [1, a, 1/a] / (1 + a + 1/a)
  //                                                   = [0.283996, 0.575975, 0.140029]
  // and every weight right of the diagonal is exactly 0.
  auto hand = load_hand_model();
  REQUIRE(hand->decoder_input[1] == 5);
  REQUIRE(hand->decoder_input[2] == 6);
  AttentionRecord record =
      AttentionRecord::for_sentence(hand->config, static_cast<int>(hand->source.size()));
  EncodedBatch encoded;
  run_steps(*hand, record, encoded);
  REQUIRE(record.steps() == static_cast<int>(hand->decoder_input.size()));

  const double a = std::exp(1.0 / std::sqrt(2.0));
  CHECK(record.decoder_self(0, 0, 0, 0) == 1.0f);
  CHECK(record.decoder_self(0, 0, 1, 0) == Approx(1.0 / (1.0 + a)).margin(1e-6));
  CHECK(record.decoder_self(0, 0, 1, 1) == Approx(a / (1.0 + a)).margin(1e-6));
  const double sum = 1.0 + a + 1.0 / a;
  CHECK(record.decoder_self(0, 0, 2, 0) == Approx(1.0 / sum).margin(1e-6));
  CHECK(record.decoder_self(0, 0, 2, 1) == Approx(a / sum).margin(1e-6));
  CHECK(record.decoder_self(0, 0, 2, 2) == Approx(1.0 / a / sum).margin(1e-6));
  CHECK(record.decoder_self(0, 0, 1, 0) == Approx(0.330236).margin(1e-6));
  // Each step stores exactly t + 1 weights per layer and head: nothing past the diagonal.
  for (int t = 0; t < record.steps(); ++t)
    CHECK(record.decoder_self_steps[t].size() == static_cast<size_t>(2 * (t + 1)));
}

TEST_CASE("hand model: a constant embedding row scores exactly its final_logits_bias", "[hand]") {
  // The last operation before the logits is decoder.layers.0.final_layer_norm (post-norm, no
  // stack norm) with weight [1, 1, 1, 1] and bias 0, so its output h has mean 0: sum(h) = 0.
  // The output is tied, and decoder.embed_tokens row 0 (<pad>) is [0.5, 0.5, 0.5, 0.5], so
  // logit_0 = 0.5 * sum(h) + final_logits_bias[0] = -0.25 at every position.
  auto hand = load_hand_model();
  const int vocab = hand->config.target_vocab_size;
  Encoder encoder(hand->config, hand->weights);
  EncodedBatch encoded = encoder.forward({hand->source});
  Decoder decoder(hand->config, hand->weights);
  std::vector<DecoderState> states = decoder.start(encoded);
  const std::vector<float>& logits = decoder.prefix(hand->decoder_input, states[0]);
  for (size_t t = 0; t < hand->decoder_input.size(); ++t) {
    INFO("position " << t);
    CHECK(logits[t * vocab + 0] == Approx(-0.25).margin(1e-6));
  }
}

TEST_CASE("hand model: encoder output, attention and logits match the PyTorch reference",
          "[hand]") {
  auto hand = load_hand_model();
  const json& e = hand->expected;
  const int S = static_cast<int>(hand->source.size());
  const int T = static_cast<int>(hand->decoder_input.size());
  AttentionRecord record = AttentionRecord::for_sentence(hand->config, S);
  EncodedBatch encoded;
  std::vector<float> step_logits = run_steps(*hand, record, encoded);

  SECTION("encoder output and self-attention") {
    std::vector<float> expected = flat(e["encoder_output"]);
    REQUIRE(encoded.states.size() == expected.size());
    CHECK_ALL_CLOSE(encoded.states.data(), expected.data(), expected.size(), 1e-5);
    std::vector<float> attention = flat(e["encoder_self_attention"]);
    REQUIRE(record.encoder_self.size() == attention.size());
    CHECK_ALL_CLOSE(record.encoder_self.data(), attention.data(), attention.size(), 1e-5);
  }
  SECTION("logits of every step through the cache") {
    std::vector<float> expected = flat(e["logits"]);
    REQUIRE(step_logits.size() == expected.size());
    CHECK_ALL_CLOSE(step_logits.data(), expected.data(), expected.size(), 1e-5);
  }
  SECTION("logits of the whole decoder input in one prefix pass") {
    Decoder decoder(hand->config, hand->weights);
    std::vector<DecoderState> states = decoder.start(encoded);
    const std::vector<float>& logits = decoder.prefix(hand->decoder_input, states[0]);
    std::vector<float> expected = flat(e["logits"]);
    REQUIRE(logits.size() >= expected.size());
    CHECK_ALL_CLOSE(logits.data(), expected.data(), expected.size(), 1e-5);
    CHECK(states[0].length == T);
  }
  SECTION("decoder self-attention and cross-attention of every step") {
    const json& self = e["decoder_self_attention"];  // [L][H][T][T]
    const json& cross = e["cross_attention"];        // [L][H][T][S]
    double worst_self = 0.0, worst_cross = 0.0;
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < T; ++t) {
        for (int j = 0; j < T; ++j)  // j > t: the record's 0 against the reference's 0
          worst_self = std::max(worst_self, std::fabs(record.decoder_self(0, h, t, j) -
                                                      self[0][h][t][j].get<double>()));
        for (int j = 0; j < S; ++j)
          worst_cross = std::max(
              worst_cross, std::fabs(record.cross(0, h, t, j) - cross[0][h][t][j].get<double>()));
      }
    CHECK(worst_self <= 1e-5);
    CHECK(worst_cross <= 1e-5);
  }
}

TEST_CASE("hand model: greedy search gives the reference's ids and log-probabilities", "[hand]") {
  auto hand = load_hand_model();
  const json& greedy = hand->expected["greedy"];
  Encoder encoder(hand->config, hand->weights);
  EncodedBatch encoded = encoder.forward({hand->source});
  Decoder decoder(hand->config, hand->weights);
  std::vector<DecoderState> states = decoder.start(encoded);
  SearchOptions options;
  options.start_token = hand->config.decoder_start_token;
  options.eos = hand->config.special.eos;
  options.max_length = greedy["max_length"].get<int>();
  auto hypotheses = greedy_search(decoder, states, options, hand->config.target_vocab_size);
  REQUIRE(hypotheses.size() == 1);
  CHECK(hypotheses[0].tokens == greedy["ids"].get<std::vector<int>>());
  std::vector<float> expected = greedy["log_probs"].get<std::vector<float>>();
  REQUIRE(hypotheses[0].log_probs.size() == expected.size());
  CHECK_ALL_CLOSE(hypotheses[0].log_probs.data(), expected.data(), expected.size(), 1e-5);
}

TEST_CASE("hand model: the directory loads and translates like the reference", "[hand]") {
  auto hand = load_hand_model();
  const json& greedy = hand->expected["greedy"];
  auto model = Model::load(fixture_path("hand-model"));
  CHECK(model->config().d_model == 4);
  CHECK(model->source_tokenizer().size() == 8);
  Translator translator(model);
  TranslateOptions options;
  options.record_attention = true;
  auto results = translator.translate({hand->expected["source_text"].get<std::string>()}, options);
  REQUIRE(results.size() == 1);
  const Translation& t = results[0];
  REQUIRE(t.ok());
  CHECK(t.source_ids == hand->source);
  CHECK(t.output_ids == greedy["ids"].get<std::vector<int>>());
  CHECK(t.text == greedy["text"].get<std::string>());
  std::vector<float> log_probs = greedy["log_probs"].get<std::vector<float>>();
  REQUIRE(t.log_probs.size() == log_probs.size());
  CHECK_ALL_CLOSE(t.log_probs.data(), log_probs.data(), log_probs.size(), 1e-5);
  REQUIRE(t.attention);
  std::vector<float> encoder_attention = flat(hand->expected["encoder_self_attention"]);
  REQUIRE(t.attention->encoder_self.size() == encoder_attention.size());
  CHECK_ALL_CLOSE(t.attention->encoder_self.data(), encoder_attention.data(),
                  encoder_attention.size(), 1e-5);
}
