// The decoder refuses what would read or write past its tables (positions beyond
// max_positions), and keeps an attention record in step with its state however it is fed.
#include <catch2/catch.hpp>
#include <random>

#include "minimt/base/error.h"
#include "minimt/engine/attention_recorder.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "test_support.h"

using namespace minimt;

TEST_CASE("decoder: positions past max_positions are refused", "[decoder]") {
  // Learned positions: reading row max_positions would leave the table.
  auto m =
      test::random_model(test::small_config({{"positions", "learned"}, {"max_positions", 6}}), 11);
  const ModelConfig& c = m->config;
  std::mt19937 rng(12);
  Encoder encoder(c, m->weights);
  Decoder decoder(c, m->weights);
  auto encoded = encoder.forward({test::random_ids(rng, 3, c.source_vocab_size, true)});
  auto states = decoder.start(encoded);
  std::vector<DecoderState*> batch{&states[0]};
  for (int position = 0; position < c.max_positions; ++position)
    decoder.step({c.decoder_start_token}, batch);
  CHECK(states[0].length == c.max_positions);
  CHECK_THROWS_AS(decoder.step({c.decoder_start_token}, batch), Error);

  auto fresh = decoder.start(encoded);
  std::vector<int> too_long(c.max_positions + 1, c.decoder_start_token);
  CHECK_THROWS_AS(decoder.prefix(too_long, fresh[0]), Error);
}

TEST_CASE("decoder: a recorded state gets one record step per position, run or step", "[decoder]") {
  auto m = test::random_model(test::small_config(), 21);
  const ModelConfig& c = m->config;
  std::mt19937 rng(22);
  Encoder encoder(c, m->weights);
  Decoder decoder(c, m->weights);
  AttentionRecord record;
  AttentionRecorder recorder(record, c, m->weights);
  auto encoded = encoder.forward({test::random_ids(rng, 4, c.source_vocab_size, true)});
  auto states = decoder.start(encoded, {&recorder});
  decoder.prefix({c.decoder_start_token, 5}, states[0]);
  REQUIRE(record.steps() == 2);
  std::vector<DecoderState*> batch{&states[0]};
  decoder.step({6}, batch);
  decoder.step({5}, batch);
  REQUIRE(record.steps() == 4);
  for (int t = 0; t < 4; ++t) {
    CHECK(record.decoder_self_steps[t].size() ==
          static_cast<size_t>(c.decoder_layers) * c.num_heads * (t + 1));
    CHECK(record.cross_steps[t].size() == static_cast<size_t>(c.decoder_layers) * c.num_heads * 4);
  }
}
