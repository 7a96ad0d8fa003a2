// The engine's self-consistency on seeded random models (decoder_test_models.h):
//  - the K/V cache: step-by-step decoding equals recomputing the whole prefix at every step,
//    and cross-attention keys/values are projected once per sentence, never per step;
//  - the causal mask: attention rows sum to 1, and a later decoder input never changes an
//    earlier position's logits;
//  - batches: a batch of sentences equals each sentence alone, in the encoder and the decoder.
#include "decoder_test_models.h"

TEST_CASE("cache: step-by-step logits equal recomputing the whole prefix at every step",
          "[decoder][cache]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 101);
    std::mt19937 rng(202);
    Encoder encoder(m->config, m->weights);
    EncodedBatch encoded = encoder.forward({random_ids(rng, 7, m->config.source_vocab_size, true)});
    const std::vector<int> tokens = decoder_run(*m, rng, 12);
    const size_t vocab = m->config.target_vocab_size;

    Decoder decoder(m->config, m->weights);
    std::vector<DecoderState> states = decoder.start(encoded);
    std::vector<float> all_steps;
    for (size_t t = 0; t < tokens.size(); ++t) {
      const std::vector<float>& cached = decoder.step({tokens[t]}, {&states[0]});
      std::vector<float> expected = recomputed_last_logits(*m, encoded, tokens, t + 1);
      INFO("step " << t);
      CHECK(states[0].length == static_cast<int>(t + 1));
      CHECK(states[0].layers[0].self_k.size() ==
            (t + 1) * static_cast<size_t>(m->config.attention_width()));
      CHECK_ALL_CLOSE(cached.data(), expected.data(), vocab, 1e-5);
      all_steps.insert(all_steps.end(), cached.begin(), cached.begin() + vocab);
    }

    // One prefix pass over the whole run gives every step's logits at once.
    Decoder whole(m->config, m->weights);
    std::vector<DecoderState> fresh = whole.start(encoded);
    const std::vector<float>& logits = whole.prefix(tokens, fresh[0]);
    REQUIRE(logits.size() >= all_steps.size());
    CHECK_ALL_CLOSE(logits.data(), all_steps.data(), all_steps.size(), 1e-5);

    // A prefix, then steps on the same state, continue the same sequence.
    Decoder mixed(m->config, m->weights);
    std::vector<DecoderState> mixed_states = mixed.start(encoded);
    mixed.prefix(std::vector<int>(tokens.begin(), tokens.begin() + 5), mixed_states[0]);
    for (size_t t = 5; t < tokens.size(); ++t) {
      const std::vector<float>& row = mixed.step({tokens[t]}, {&mixed_states[0]});
      INFO("step " << t << " after a prefix of 5");
      CHECK_ALL_CLOSE(row.data(), all_steps.data() + t * vocab, vocab, 1e-5);
    }
  }
}

TEST_CASE("cache: cross-attention keys and values are projected once per sentence",
          "[decoder][cache]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 303);
    const ModelConfig& c = m->config;
    std::mt19937 rng(404);
    Encoder encoder(c, m->weights);
    EncodedBatch encoded = encoder.forward({random_ids(rng, 4, c.source_vocab_size, true),
                                            random_ids(rng, 9, c.source_vocab_size, true),
                                            random_ids(rng, 2, c.source_vocab_size, true)});
    Decoder decoder(c, m->weights);
    CHECK(decoder.cross_projections() == 0);
    std::vector<DecoderState> states = decoder.start(encoded);
    // One projection per layer for the whole batch.
    CHECK(decoder.cross_projections() == c.decoder_layers);
    for (int b = 0; b < 3; ++b)
      for (int l = 0; l < c.decoder_layers; ++l)
        CHECK(states[b].layers[l].cross_k.size() ==
              static_cast<size_t>(encoded.length(b)) * c.attention_width());
    SearchOptions options;
    options.start_token = c.decoder_start_token;
    options.eos = c.special.eos;
    options.max_length = 10;
    auto hypotheses = greedy_search(decoder, states, options, c.target_vocab_size);
    CHECK(hypotheses.size() == 3);
    CHECK(decoder.cross_projections() == c.decoder_layers);  // none during the decode loop
  }
}

TEST_CASE("cache: a decoder step does no work proportional to d_model per source token",
          "[decoder][cache]") {
  // Counts gemm FLOPs of one step. The linear layers of a step cost, for B sentences:
  //   per layer: q, k, v, out of self-attention, q and out of cross-attention (6 * 2*B*d*W)
  //              and the feed-forward (2 * 2*B*d*F); then the logits (2*B*d*V).
  // Attention itself (if it goes through gemm) adds 4*W*(t+1) + 4*W*S per sentence and layer.
  // Projecting the encoder output for cross-attention again would add 4*S*d*W per layer.
  auto m = variant_model(variants()[0], 505);
  const ModelConfig& c = m->config;
  const uint64_t d = c.d_model, W = c.attention_width(), F = c.d_ff, V = c.target_vocab_size,
                 L = c.decoder_layers;
  std::mt19937 rng(606);
  const std::vector<int> tokens = decoder_run(*m, rng, 4);

  // FLOPs of the 4th step for one sentence whose source has `length` tokens.
  auto step_flops = [&](int length) {
    Encoder encoder(c, m->weights);
    EncodedBatch encoded = encoder.forward({random_ids(rng, length, c.source_vocab_size, true)});
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoded);
    for (size_t t = 0; t + 1 < tokens.size(); ++t) decoder.step({tokens[t]}, {&states[0]});
    const uint64_t before = ops::gemm_flops();
    decoder.step({tokens.back()}, {&states[0]});
    return ops::gemm_flops() - before;
  };
  const uint64_t linear = L * (12 * d * W + 4 * d * F) + 2 * d * V;
  for (int length : {3, 15}) {
    INFO("source length " << length);
    const uint64_t attention = L * (4 * W * tokens.size() + 4 * W * length);
    const uint64_t flops = step_flops(length);
    CHECK(flops >= linear);
    CHECK(flops <= linear + attention);
  }
  // Twelve more source tokens may cost at most the attention over them.
  const uint64_t extra = step_flops(15) - step_flops(3);
  CHECK(extra <= L * 4 * W * 12);
  CHECK(extra < L * 4 * d * W * 12);
}

TEST_CASE("mask: a later decoder input never changes an earlier position", "[decoder][mask]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 707);
    std::mt19937 rng(808);
    Encoder encoder(m->config, m->weights);
    EncodedBatch encoded = encoder.forward({random_ids(rng, 6, m->config.source_vocab_size, true)});
    const size_t vocab = m->config.target_vocab_size;
    const std::vector<int> first = decoder_run(*m, rng, 9);
    for (size_t k : {size_t{1}, size_t{4}, first.size() - 1}) {
      INFO("runs differ at position " << k);
      std::vector<int> second = first;
      second[k] = first[k] == 4 ? 5 : 4;
      Decoder decoder(m->config, m->weights);
      std::vector<DecoderState> states = decoder.start(encoded);
      std::vector<float> a = decoder.prefix(first, states[0]);
      states = decoder.start(encoded);
      std::vector<float> b = decoder.prefix(second, states[0]);
      REQUIRE(a.size() == first.size() * vocab);
      // Rows before k: bit-identical.
      CHECK(std::memcmp(a.data(), b.data(), k * vocab * sizeof(float)) == 0);
      // Row k reads the changed token itself, so it must differ (the test can see a change).
      CHECK(
          minimt::test::max_difference(a.data() + k * vocab, b.data() + k * vocab, vocab).largest >
          1e-4);
    }
  }
}

TEST_CASE("mask: recorded decoder self-attention rows sum to 1 over keys up to the diagonal",
          "[decoder][mask]") {
  auto m = variant_model(variants()[1], 909);
  const ModelConfig& c = m->config;
  std::mt19937 rng(1010);
  const std::vector<int> source = random_ids(rng, 5, c.source_vocab_size, true);
  AttentionRecord record;
  record.encoder_layers = c.encoder_layers;
  record.decoder_layers = c.decoder_layers;
  record.heads = c.num_heads;
  record.source_length = static_cast<int>(source.size());
  AttentionRecorder recorder(record, c, m->weights);
  Encoder encoder(c, m->weights);
  EncodedBatch encoded = encoder.forward({source}, {&recorder});
  Decoder decoder(c, m->weights);
  std::vector<DecoderState> states = decoder.start(encoded, {&recorder});
  const std::vector<int> tokens = decoder_run(*m, rng, 8);
  std::vector<float> recorded_logits;
  for (int token : tokens) {
    const std::vector<float>& logits = decoder.step({token}, {&states[0]});
    recorded_logits.insert(recorded_logits.end(), logits.begin(),
                           logits.begin() + c.target_vocab_size);
  }
  REQUIRE(record.steps() == static_cast<int>(tokens.size()));
  for (int t = 0; t < record.steps(); ++t) {
    REQUIRE(record.decoder_self_steps[t].size() ==
            static_cast<size_t>(c.decoder_layers) * c.num_heads * (t + 1));
    for (int l = 0; l < c.decoder_layers; ++l)
      for (int h = 0; h < c.num_heads; ++h) {
        INFO("step " << t << " layer " << l << " head " << h);
        double self = 0.0, cross = 0.0;
        bool in_range = true;
        for (int j = 0; j <= t; ++j) {
          const float p = record.decoder_self(l, h, t, j);
          in_range = in_range && p >= 0.0f && p <= 1.0f;
          self += p;
        }
        for (int j = 0; j < record.source_length; ++j) cross += record.cross(l, h, t, j);
        CHECK(in_range);
        CHECK(self == Approx(1.0).margin(1e-5));
        CHECK(cross == Approx(1.0).margin(1e-5));
        if (t == 0) CHECK(record.decoder_self(l, h, 0, 0) == 1.0f);
      }
  }
  // Recording does not change the logits: the same steps without a record agree exactly.
  Decoder plain(c, m->weights);
  std::vector<DecoderState> plain_states = plain.start(encoded);
  std::vector<float> plain_logits;
  for (int token : tokens) {
    const std::vector<float>& logits = plain.step({token}, {&plain_states[0]});
    plain_logits.insert(plain_logits.end(), logits.begin(), logits.begin() + c.target_vocab_size);
  }
  CHECK(plain_logits == recorded_logits);
}

TEST_CASE("decoder: a batch of states steps like each state alone", "[decoder][cache]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 1111);
    const ModelConfig& c = m->config;
    const size_t vocab = c.target_vocab_size;
    std::mt19937 rng(1212);
    std::vector<std::vector<int>> sources = {random_ids(rng, 3, c.source_vocab_size, true),
                                             random_ids(rng, 8, c.source_vocab_size, true),
                                             random_ids(rng, 1, c.source_vocab_size, true)};
    std::vector<std::vector<int>> runs = {decoder_run(*m, rng, 6), decoder_run(*m, rng, 6),
                                          decoder_run(*m, rng, 6)};
    Encoder encoder(c, m->weights);
    EncodedBatch encoded = encoder.forward(sources);
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoded);
    std::vector<std::vector<float>> together(3);
    for (size_t t = 0; t < 6; ++t) {
      const std::vector<float>& logits =
          decoder.step({runs[0][t], runs[1][t], runs[2][t]}, {&states[0], &states[1], &states[2]});
      for (size_t b = 0; b < 3; ++b)
        together[b].insert(together[b].end(), logits.begin() + b * vocab,
                           logits.begin() + (b + 1) * vocab);
    }
    for (size_t b = 0; b < 3; ++b) {
      EncodedBatch alone = encoder.forward({sources[b]});
      Decoder single(c, m->weights);
      std::vector<DecoderState> state = single.start(alone);
      std::vector<float> expected = single.prefix(runs[b], state[0]);
      INFO("sentence " << b);
      CHECK_ALL_CLOSE(together[b].data(), expected.data(), together[b].size(), 1e-5);
    }
  }
}

TEST_CASE("encoder: a batch of sentences encodes like each sentence alone", "[encoder]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 1313);
    const ModelConfig& c = m->config;
    std::mt19937 rng(1414);
    std::vector<std::vector<int>> sources = {random_ids(rng, 5, c.source_vocab_size, true),
                                             random_ids(rng, 1, c.source_vocab_size, true),
                                             random_ids(rng, 12, c.source_vocab_size, true),
                                             random_ids(rng, 5, c.source_vocab_size, true)};
    std::vector<AttentionRecord> batch_records(sources.size()), single_records(sources.size());
    std::vector<AttentionRecorder> recorders;
    for (auto& r : batch_records) recorders.emplace_back(r, c, m->weights);
    std::vector<Probe*> pointers;
    for (auto& r : recorders) pointers.push_back(&r);
    Encoder encoder(c, m->weights);
    EncodedBatch batch = encoder.forward(sources, pointers);
    REQUIRE(batch.sentences() == 4);
    for (size_t b = 0; b < sources.size(); ++b) {
      INFO("sentence " << b);
      REQUIRE(batch.length(static_cast<int>(b)) == static_cast<int>(sources[b].size()));
      AttentionRecorder single(single_records[b], c, m->weights);
      EncodedBatch alone = encoder.forward({sources[b]}, {&single});
      const float* rows = batch.states.data() + static_cast<size_t>(batch.offsets[b]) * c.d_model;
      CHECK_ALL_CLOSE(rows, alone.states.data(), alone.states.size(), batch_tolerance());
      REQUIRE(batch_records[b].encoder_self.size() == single_records[b].encoder_self.size());
      CHECK_ALL_CLOSE(batch_records[b].encoder_self.data(), single_records[b].encoder_self.data(),
                      single_records[b].encoder_self.size(), batch_tolerance());
    }
    // Sentences 0 and 3 have the same length but different tokens: different outputs.
    CHECK(minimt::test::max_difference(batch.states.data(),
                                       batch.states.data() + batch.offsets[3] * c.d_model,
                                       5 * c.d_model)
              .largest > 1e-3);
  }
}

// ----------------------------------------------------------------------------- translator
