// Head analysis (issue 12): the pattern statistics of `minimt heads` on hand-made attention
// matrices worked out by hand, the --mask-heads SPEC parser and its messages, and the engine's
// head mask on seeded random models (masked weights recorded as 0, a masked head equal to a
// model whose out_proj columns of that head are 0, no cross head left: logits independent of
// the source).
#include <cmath>
#include <optional>
#include <tuple>

#include "decoder_test_models.h"
#include "minimt/app/analysis/head_analysis.h"
#include "minimt/app/run/head_mask_spec.h"
#include "minimt/engine/head_mask.h"

using minimt::test::empty_record;
using minimt::test::error_of;

namespace {

using Rows = std::vector<std::vector<float>>;

// -p ln p, in nats; 0 for p = 0.
double plogp(double p) {
  return p > 0 ? -p * std::log(p) : 0.0;
}

// The statistics are sums of exact binary fractions (and logs) in double: Catch's default
// relative margin (about 1e-5) would let a wrong row or key slip through.
Approx near(double value) {
  return Approx(value).epsilon(1e-12).margin(1e-12);
}

}  // namespace

TEST_CASE("head analysis: statistics of a hand-made encoder self-attention matrix",
          "[heads][pattern]") {
  // Query i over keys 0..2; key 2 holds the source's eos. All values are exact in binary.
  const Rows rows = {{0.5f, 0.25f, 0.25f}, {0.75f, 0.25f, 0.0f}, {0.125f, 0.625f, 0.25f}};
  PatternStats stats;
  add_pattern_rows(stats, rows, true, 2, nullptr);
  finish_pattern(stats);
  const double entropy = (plogp(0.5) + 2 * plogp(0.25)                    // 1.5 ln 2 = 1.0397
                          + plogp(0.75) + plogp(0.25)                     // 0.5623
                          + plogp(0.125) + plogp(0.625) + plogp(0.25)) /  // 0.9003
                         3;
  CHECK(stats.rows == 3);
  CHECK(stats.entropy == near(entropy));
  CHECK(stats.entropy == Approx(0.8341040).epsilon(0).margin(1e-7));
  CHECK(stats.max_weight == near((0.5 + 0.75 + 0.625) / 3));  // 0.625
  REQUIRE(stats.same);
  CHECK(*stats.same == near((0.5 + 0.25 + 0.25) / 3));  // the diagonal
  REQUIRE(stats.previous);
  CHECK(stats.previous_rows == 2);
  CHECK(*stats.previous == near((0.75 + 0.625) / 2));  // query 0 has no previous key
  CHECK(stats.first == near((0.5 + 0.75 + 0.125) / 3));
  REQUIRE(stats.eos);
  CHECK(*stats.eos == near((0.25 + 0.0 + 0.25) / 3));
  CHECK_FALSE(stats.alignment_agreement);
}

TEST_CASE("head analysis: causal decoder rows, no eos key, position 0 left out",
          "[heads][pattern]") {
  // Decoder self-attention: query i sees keys 0..i only (the causal zeros are not keys).
  // Query 0 sees only itself: its weight 1 is forced by the mask, so it is no row of any
  // statistic (counted, same, first and max would each gain a 1 from it).
  const Rows rows = {{1.0f}, {0.25f, 0.75f}, {0.5f, 0.25f, 0.25f}};
  PatternStats stats;
  add_pattern_rows(stats, rows, true, -1, nullptr);
  finish_pattern(stats);
  CHECK(stats.rows == 2);
  CHECK(stats.entropy == near((plogp(0.25) + plogp(0.75) + plogp(0.5) + 2 * plogp(0.25)) / 2));
  CHECK(stats.max_weight == near((0.75 + 0.5) / 2));
  REQUIRE(stats.same);
  CHECK(*stats.same == near((0.75 + 0.25) / 2));  // not (1 + 0.75 + 0.25) / 3
  REQUIRE(stats.previous);
  CHECK(stats.previous_rows == 2);
  CHECK(*stats.previous == near((0.25 + 0.25) / 2));
  CHECK(stats.first == near((0.25 + 0.5) / 2));  // not (1 + 0.25 + 0.5) / 3
  CHECK_FALSE(stats.eos);
  CHECK_FALSE(stats.alignment_agreement);
}

TEST_CASE("head analysis: rows with one key say nothing and are left out", "[heads][pattern]") {
  // A one-piece source (the eos alone): every encoder and cross row has one key.
  PatternStats encoder;
  add_pattern_rows(encoder, {{1.0f}}, true, 0, nullptr);
  finish_pattern(encoder);
  CHECK(encoder.rows == 0);
  CHECK_FALSE(encoder.same);
  CHECK_FALSE(encoder.eos);
  CHECK(encoder.first == 0.0);

  const Rows average = {{1.0f}, {1.0f}};
  PatternStats cross;
  add_pattern_rows(cross, {{1.0f}, {1.0f}}, false, 0, &average);
  // A second sentence with two source pieces: only its rows count.
  const Rows average2 = {{0.75f, 0.25f}};
  add_pattern_rows(cross, {{0.25f, 0.75f}}, false, 1, &average2);
  finish_pattern(cross);
  CHECK(cross.rows == 1);
  CHECK(cross.max_weight == near(0.75));
  CHECK(cross.first == near(0.25));
  REQUIRE(cross.eos);
  CHECK(*cross.eos == near(0.75));
  REQUIRE(cross.alignment_agreement);
  CHECK(*cross.alignment_agreement == near(0.0));  // key 1 against the average's key 0
}

TEST_CASE("head analysis: cross-attention rows and arg-max agreement with the head average",
          "[heads][pattern]") {
  // Two target positions over a source of 3 (eos last). Row 0's arg-max (key 1) is the
  // average's; row 1's (key 0) is not (the average peaks at key 2).
  const Rows rows = {{0.25f, 0.5f, 0.25f}, {0.5f, 0.25f, 0.25f}};
  const Rows average = {{0.125f, 0.75f, 0.125f}, {0.25f, 0.25f, 0.5f}};
  PatternStats stats;
  add_pattern_rows(stats, rows, false, 2, &average);
  finish_pattern(stats);
  CHECK(stats.entropy == near(plogp(0.5) + 2 * plogp(0.25)));  // both rows: 1.5 ln 2
  CHECK(stats.max_weight == near(0.5));
  CHECK_FALSE(stats.same);
  CHECK_FALSE(stats.previous);
  CHECK(stats.first == near(0.375));
  REQUIRE(stats.eos);
  CHECK(*stats.eos == near(0.25));
  REQUIRE(stats.alignment_agreement);
  CHECK(*stats.alignment_agreement == near(0.5));
}

TEST_CASE("head analysis: arg-max agreement with |attribution|, rows of one key left out",
          "[heads][pattern]") {
  // Row 0: the head's key 1 is where |attribution| is largest (0.75); row 1: the head's key 0
  // is not (key 2); a row of one key counts for nothing.
  const Rows rows = {{0.25f, 0.5f, 0.25f}, {0.5f, 0.25f, 0.25f}};
  const Rows average = rows;
  const Rows attribution = {{0.5f, 0.75f, 0.1f}, {0.25f, 0.0f, 0.5f}};  // absolute values
  PatternStats stats;
  add_pattern_rows(stats, rows, false, 2, &average, &attribution);
  const Rows one = {{1.0f}}, one_attribution = {{0.5f}};
  add_pattern_rows(stats, one, false, 0, &one, &one_attribution);
  finish_pattern(stats);
  REQUIRE(stats.attribution_agreement);
  CHECK(*stats.attribution_agreement == near(0.5));
  PatternStats without;
  add_pattern_rows(without, rows, false, 2, &average);
  CHECK_FALSE(without.attribution_agreement);
}

TEST_CASE("head analysis: sentences pool their rows; no rows gives zeros, not NaN",
          "[heads][pattern]") {
  // Means over every row of every sentence (2 + 3 rows), not a mean of sentence means; a
  // sentence's first query has no previous key.
  PatternStats stats;
  add_pattern_rows(stats, {{1.0f, 0.0f}, {0.5f, 0.5f}}, true, 1, nullptr);
  add_pattern_rows(stats, {{0.5f, 0.5f, 0.0f}, {0.0f, 0.5f, 0.5f}, {0.25f, 0.25f, 0.5f}}, true, 2,
                   nullptr);
  finish_pattern(stats);
  CHECK(stats.rows == 5);
  CHECK(stats.entropy == near((0.0 + 3 * (2 * plogp(0.5)) + (2 * plogp(0.25) + plogp(0.5))) / 5));
  CHECK(stats.max_weight == near((1.0 + 0.5 + 0.5 + 0.5 + 0.5) / 5));
  CHECK(*stats.same == near((1.0 + 0.5 + 0.5 + 0.5 + 0.5) / 5));
  CHECK(stats.previous_rows == 3);
  CHECK(*stats.previous == near((0.5 + 0.0 + 0.25) / 3));
  CHECK(stats.first == near((1.0 + 0.5 + 0.5 + 0.0 + 0.25) / 5));
  CHECK(*stats.eos == near((0.0 + 0.5 + 0.0 + 0.5 + 0.5) / 5));

  PatternStats empty;
  finish_pattern(empty);
  CHECK(empty.rows == 0);
  CHECK(empty.entropy == 0.0);
  CHECK(empty.max_weight == 0.0);
  CHECK(empty.first == 0.0);
}

// ----------------------------------------------------------------------------- SPEC parser

namespace {

// 3 encoder layers, 2 decoder layers, 4 heads.
ModelConfig spec_config() {
  return ModelConfig::from_json(
      small_config({{"encoder_layers", 3}, {"decoder_layers", 2}, {"num_heads", 4}}),
      "config.json");
}

std::string parsed(const std::string& spec) {
  return parse_head_mask(spec, spec_config()).to_string();
}

std::string parse_error(const std::string& spec) {
  return error_of([&] { parse_head_mask(spec, spec_config()); });
}

}  // namespace

TEST_CASE("head mask SPEC: heads, layers, * and negative indices", "[heads][spec]") {
  CHECK(parsed("encoder:0:1") == "encoder:0:1");
  CHECK(parsed("cross:-1:0") == "cross:1:0");
  CHECK(parsed("decoder:*:-1") == "decoder:0:3,decoder:1:3");
  CHECK(parsed("encoder:-3:*") == "encoder:0:0,encoder:0:1,encoder:0:2,encoder:0:3");
  CHECK(parsed("decoder:-2:-4") == "decoder:0:0");
  // Listed in order of type, layer and head whatever the SPEC's order; repeats count once.
  CHECK(parsed("cross:1:2,encoder:2:0,decoder:0:1") == "encoder:2:0,decoder:0:1,cross:1:2");
  const HeadMask repeated = parse_head_mask("cross:0:0,cross:0:0,cross:*:0", spec_config());
  CHECK(repeated.count() == 2);
  CHECK(repeated.to_string() == "cross:0:0,cross:1:0");

  const HeadMask all = parse_head_mask("cross:*:*", spec_config());
  CHECK(all.count() == 8);
  CHECK(all.masked(AttentionKind::kCross, 1, 3));
  CHECK_FALSE(all.masked(AttentionKind::kDecoder, 1, 3));
  CHECK_FALSE(all.masked(AttentionKind::kEncoder, 0, 0));
  CHECK(all.layer(AttentionKind::kEncoder, 0) == nullptr);  // no head of that layer masked
  REQUIRE(all.layer(AttentionKind::kCross, 1) != nullptr);
  CHECK(all.layer(AttentionKind::kCross, 1)[3] == 1);

  const HeadMask one = parse_head_mask("decoder:1:2", spec_config());
  CHECK(one.count() == 1);
  const char* flags = one.layer(AttentionKind::kDecoder, 1);
  REQUIRE(flags != nullptr);
  CHECK((flags[0] == 0 && flags[1] == 0 && flags[2] == 1 && flags[3] == 0));
  CHECK(one.layer(AttentionKind::kDecoder, 0) == nullptr);
  CHECK(one.layer(AttentionKind::kCross, 1) == nullptr);
  CHECK(HeadMask().empty());
}

TEST_CASE("head mask SPEC: every error names the item and what is wrong", "[heads][spec]") {
  using Catch::Matchers::Contains;
  // (SPEC, fragments of the message)
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"crosss:0:0", {"'crosss:0:0'", "type 'crosss'", "encoder, decoder or cross"}},
      {"cross:2:0", {"'cross:2:0'", "no layer 2"}},
      {"encoder:3:0", {"'encoder:3:0'", "no layer 3"}},
      {"encoder:-4:0", {"no layer -4"}},
      {"cross:0:4", {"'cross:0:4'", "no head 4"}},
      {"cross:0:-5", {"no head -5"}},
      {"cross:0", {"'cross:0'", "TYPE:LAYER:HEAD"}},
      {"cross:0:0:0", {"'cross:0:0:0'", "TYPE:LAYER:HEAD"}},
      {"cross", {"'cross'", "TYPE:LAYER:HEAD"}},
      {"encoder:x:1", {"'encoder:x:1'", "layer 'x'", "not a number or *"}},
      {"encoder:1:y", {"head 'y'", "not a number or *"}},
      {"encoder::1", {"layer ''", "not a number or *"}},
      {"encoder:1.5:0", {"layer '1.5'", "not a number or *"}},
      {"encoder:0:**", {"head '**'", "not a number or *"}},
      {"cross:99999999999999999999:0", {"not a number or *"}},
      {"", {"names no head"}},
      {",", {"names no head"}},
      {"cross:0:0,decoder:9:0", {"'decoder:9:0'", "no layer 9"}},
  };
  for (const auto& [spec, fragments] : cases) {
    INFO("SPEC '" << spec << "'");
    CHECK_THROWS_AS(parse_head_mask(spec, spec_config()), Error);
    const std::string message = parse_error(spec);
    for (const std::string& fragment : fragments) CHECK_THAT(message, Contains(fragment));
  }
  // An index outside the model straight through HeadMask::mask is refused too.
  HeadMask mask(3, 2, 4);
  CHECK_THROWS_AS(mask.mask(AttentionKind::kCross, 2, 0), Error);
  CHECK_THROWS_AS(mask.mask(AttentionKind::kEncoder, 0, 4), Error);
  CHECK(mask.empty());
}

// ----------------------------------------------------------------------------- engine

namespace {

// Logits [T, V] of a teacher-forced run of tokens after source, under mask (may be null),
// with every attention weight recorded into record (if given).
std::vector<float> forced_logits(const TestModel& m, const HeadMask* mask,
                                 const std::vector<int>& source, const std::vector<int>& tokens,
                                 AttentionRecord* record = nullptr) {
  Encoder encoder(m.config, m.weights);
  Decoder decoder(m.config, m.weights);
  encoder.set_head_mask(mask);
  decoder.set_head_mask(mask);
  std::optional<AttentionRecorder> recorder;
  if (record) recorder.emplace(*record, m.config, m.weights);
  Probe* probe = recorder ? &*recorder : nullptr;
  EncodedBatch encoded = encoder.forward({source}, {probe});
  std::vector<DecoderState> states = decoder.start(encoded, {probe});
  const std::vector<float>& logits = decoder.prefix(tokens, states[0]);
  return std::vector<float>(logits.begin(),
                            logits.begin() + tokens.size() * m.config.target_vocab_size);
}

// The random model of variant_model(v, seed) with the out_proj columns of some heads set to 0
// ((tensor prefix, head) pairs): what head_mask 0 computes, without any mask code.
std::unique_ptr<TestModel> zeroed_model(const Variant& v, unsigned seed,
                                        const std::vector<std::pair<std::string, int>>& heads) {
  auto model = std::make_unique<TestModel>();
  model->config = ModelConfig::from_json(small_config(v.patch), "config.json");
  const ModelConfig& c = model->config;
  std::mt19937 rng(seed);
  for (const auto& [name, shape] : minimt::test::format_tensors(c, v.final_logits_bias)) {
    std::vector<float> values = minimt::test::random_values(c, name, shape, rng);
    for (const auto& [prefix, head] : heads)
      if (name == prefix + ".out_proj.weight")  // [d_model, H*dk]: zero head's dk columns
        for (int64_t row = 0; row < shape[0]; ++row)
          for (int col = head * c.head_dim; col < (head + 1) * c.head_dim; ++col)
            values[static_cast<size_t>(row * shape[1] + col)] = 0.0f;
    model->store.add_owned(name, shape, std::move(values));
  }
  model->weights = bind_weights(c, model->store, "random.safetensors");
  model->packed = pack_linear_layers(model->weights, minimt::test::test_kernel());
  return model;
}

// Rows of an unmasked head sum to 1; every weight of a masked head is exactly 0.
void check_head_rows(const AttentionRecord& r, const HeadMask& mask, AttentionKind kind, int l,
                     int h) {
  const int s = r.source_length, t = r.steps();
  const int queries = kind == AttentionKind::kEncoder ? s : t;
  const int keys = kind == AttentionKind::kDecoder ? t : s;
  const bool masked = mask.masked(kind, l, h);
  INFO(kind_name(kind) << " layer " << l << " head " << h << (masked ? " (masked)" : ""));
  bool all_zero = true;
  for (int i = 0; i < queries; ++i) {
    double sum = 0;
    for (int j = 0; j < keys; ++j) {
      const float p = kind == AttentionKind::kEncoder   ? r.encoder(l, h, i, j)
                      : kind == AttentionKind::kDecoder ? r.decoder_self(l, h, i, j)
                                                        : r.cross(l, h, i, j);
      all_zero = all_zero && p == 0.0f;
      sum += p;
    }
    if (!masked) CHECK(sum == Approx(1.0).margin(1e-5));
  }
  if (masked) CHECK(all_zero);
}

}  // namespace

TEST_CASE("head mask: masked heads record 0 and equal zeroing their out_proj columns",
          "[heads][mask]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    const unsigned seed = 5151;
    auto m = variant_model(v, seed);
    const ModelConfig& c = m->config;
    const int last_head = c.num_heads - 1, last_layer = c.decoder_layers - 1;
    HeadMask mask(c.encoder_layers, c.decoder_layers, c.num_heads);
    mask.mask(AttentionKind::kEncoder, 0, 0);
    mask.mask(AttentionKind::kDecoder, last_layer, 1);
    mask.mask(AttentionKind::kCross, 0, last_head);
    auto zeroed = zeroed_model(v, seed,
                               {{"encoder.layers.0.self_attn", 0},
                                {"decoder.layers." + std::to_string(last_layer) + ".self_attn", 1},
                                {"decoder.layers.0.encoder_attn", last_head}});
    std::mt19937 rng(5252);
    const std::vector<int> source = random_ids(rng, 6, c.source_vocab_size, true);
    const std::vector<int> tokens = decoder_run(*m, rng, 9);

    AttentionRecord record = AttentionRecord::for_sentence(c, static_cast<int>(source.size()));
    const std::vector<float> masked = forced_logits(*m, &mask, source, tokens, &record);
    const std::vector<float> plain = forced_logits(*m, nullptr, source, tokens);
    const std::vector<float> arithmetic = forced_logits(*zeroed, nullptr, source, tokens);
    CHECK(masked != plain);  // the mask changes something
    CHECK_ALL_CLOSE(masked.data(), arithmetic.data(), masked.size(), 1e-6);

    REQUIRE(record.steps() == static_cast<int>(tokens.size()));
    for (int l = 0; l < c.encoder_layers; ++l)
      for (int h = 0; h < c.num_heads; ++h)
        check_head_rows(record, mask, AttentionKind::kEncoder, l, h);
    for (int l = 0; l < c.decoder_layers; ++l)
      for (int h = 0; h < c.num_heads; ++h) {
        check_head_rows(record, mask, AttentionKind::kDecoder, l, h);
        check_head_rows(record, mask, AttentionKind::kCross, l, h);
      }

    // Cached steps under the mask give the prefix run's logits.
    Encoder encoder(c, m->weights);
    Decoder decoder(c, m->weights);
    encoder.set_head_mask(&mask);
    decoder.set_head_mask(&mask);
    EncodedBatch encoded = encoder.forward({source});
    std::vector<DecoderState> states = decoder.start(encoded);
    const size_t vocab = c.target_vocab_size;
    for (size_t t = 0; t < tokens.size(); ++t) {
      INFO("step " << t);
      const std::vector<float>& row = decoder.step({tokens[t]}, {&states[0]});
      CHECK_ALL_CLOSE(row.data(), masked.data() + t * vocab, vocab, 1e-5);
    }
  }
}

TEST_CASE("head mask: without cross-attention heads the logits do not depend on the source",
          "[heads][mask]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 6161);
    const ModelConfig& c = m->config;
    HeadMask no_cross(c.encoder_layers, c.decoder_layers, c.num_heads);
    for (int l = 0; l < c.decoder_layers; ++l)
      for (int h = 0; h < c.num_heads; ++h) no_cross.mask(AttentionKind::kCross, l, h);
    std::mt19937 rng(6262);
    const std::vector<int> one = random_ids(rng, 5, c.source_vocab_size, true);
    const std::vector<int> other = random_ids(rng, 9, c.source_vocab_size, true);
    const std::vector<int> tokens = decoder_run(*m, rng, 8);

    CHECK(forced_logits(*m, nullptr, one, tokens) != forced_logits(*m, nullptr, other, tokens));
    const std::vector<float> a = forced_logits(*m, &no_cross, one, tokens);
    const std::vector<float> b = forced_logits(*m, &no_cross, other, tokens);
    CHECK(a == b);

    // The same two sources in one batch, decoded side by side.
    Encoder encoder(c, m->weights);
    Decoder decoder(c, m->weights);
    encoder.set_head_mask(&no_cross);
    decoder.set_head_mask(&no_cross);
    EncodedBatch encoded = encoder.forward({one, other});
    std::vector<DecoderState> states = decoder.start(encoded);
    const std::vector<float>& both = decoder.run({tokens, tokens}, {&states[0], &states[1]});
    const size_t n = tokens.size() * c.target_vocab_size;
    CHECK_ALL_CLOSE(both.data(), a.data(), n, batch_tolerance());
    CHECK_ALL_CLOSE(both.data() + n, a.data(), n, batch_tolerance());
  }
}
