// Attention records of runs (a prefix run records what the same positions step by step record)
// and beams (reordered states continue like their recomputed history), on seeded random models.
#include "decoder_test_models.h"

TEST_CASE("record: a prefix run records what the same steps record, causal zeros exact",
          "[decoder][mask]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 2121);
    const ModelConfig& c = m->config;
    const size_t vocab = c.target_vocab_size;
    std::mt19937 rng(2222);
    Encoder encoder(c, m->weights);
    EncodedBatch encoded = encoder.forward({random_ids(rng, 6, c.source_vocab_size, true)});
    const std::vector<int> tokens = decoder_run(*m, rng, 11);
    const auto run = [&](size_t from, size_t to) {
      return std::vector<int>(tokens.begin() + from, tokens.begin() + to);
    };

    // Step by step: the reference.
    AttentionRecord stepped;
    AttentionRecorder stepped_recorder(stepped, c, m->weights);
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoded, {&stepped_recorder});
    for (int token : tokens) decoder.step({token}, {&states[0]});

    // One prefix over the whole run; its logits are those of the same run without a record.
    AttentionRecord whole;
    AttentionRecorder whole_recorder(whole, c, m->weights);
    states = decoder.start(encoded, {&whole_recorder});
    const std::vector<float> recorded_logits = decoder.prefix(tokens, states[0]);
    states = decoder.start(encoded);
    const std::vector<float> plain_logits = decoder.prefix(tokens, states[0]);
    CHECK(recorded_logits == plain_logits);

    // Runs and steps mixed: 2 steps, a run of 5 (not from position 0), a step, a run of 3.
    AttentionRecord mixed;
    AttentionRecorder mixed_recorder(mixed, c, m->weights);
    states = decoder.start(encoded, {&mixed_recorder});
    decoder.step({tokens[0]}, {&states[0]});
    decoder.step({tokens[1]}, {&states[0]});
    decoder.prefix(run(2, 7), states[0]);
    decoder.step({tokens[7]}, {&states[0]});
    const std::vector<float> last = decoder.prefix(run(8, 11), states[0]);
    CHECK_ALL_CLOSE(last.data(), recorded_logits.data() + 8 * vocab, 3 * vocab, 1e-5);

    for (const AttentionRecord* record : {&whole, &mixed}) {
      INFO((record == &whole ? "one prefix" : "steps and prefixes"));
      REQUIRE(record->steps() == stepped.steps());
      REQUIRE(record->decoder_self_steps.size() == stepped.decoder_self_steps.size());
      for (int t = 0; t < stepped.steps(); ++t) {
        INFO("step " << t);
        const std::vector<float>& self = record->decoder_self_steps[t];
        const std::vector<float>& cross = record->cross_steps[t];
        REQUIRE(self.size() == stepped.decoder_self_steps[t].size());
        REQUIRE(cross.size() == stepped.cross_steps[t].size());
        CHECK_ALL_CLOSE(self.data(), stepped.decoder_self_steps[t].data(), self.size(), 1e-5);
        CHECK_ALL_CLOSE(cross.data(), stepped.cross_steps[t].data(), cross.size(), 1e-5);
      }
    }
  }

  // The rows a run leaves out of the record (keys after the query) are exactly 0 in the full
  // attention matrix of the run, so the record loses nothing.
  std::mt19937 rng(2323);
  std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
  const int heads = 2, head_dim = 3, tq = 4, tk = 7, width = heads * head_dim;
  std::vector<float> q(tq * width), k(tk * width), values(tk * width), context(tq * width);
  for (auto* x : {&q, &k, &values})
    for (float& f : *x) f = uniform(rng);
  std::vector<float> probs(heads * tq * tk, -1.0f), scratch;
  multi_head_attention({q.data(), k.data(), values.data(), tq, tk, heads, head_dim, true}, {},
                       nullptr, {context.data(), probs.data()}, scratch);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j) {
        INFO("head " << h << " query " << i << " key " << j);
        const float p = probs[(h * tq + i) * tk + j];
        if (j > i + tk - tq)
          CHECK(p == 0.0f);
        else
          CHECK(p > 0.0f);
      }
}

TEST_CASE("reorder: reordered states continue like their histories recomputed",
          "[decoder][cache]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 2424);
    const ModelConfig& c = m->config;
    const size_t vocab = c.target_vocab_size, width = c.attention_width();
    std::mt19937 rng(2525);
    const std::vector<std::vector<int>> sources = {random_ids(rng, 5, c.source_vocab_size, true),
                                                   random_ids(rng, 9, c.source_vocab_size, true)};
    Encoder encoder(c, m->weights);
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoder.forward(sources));
    // What each state has been fed, and which source it reads.
    std::vector<std::vector<int>> history(2);
    std::vector<int> source = {0, 1};

    // Feeds every state one random token, then checks each state's logits against one prefix
    // over its whole history on a fresh state of its source alone.
    const auto step_and_check = [&](const char* when) {
      std::vector<int> tokens;
      std::vector<DecoderState*> batch;
      for (size_t b = 0; b < states.size(); ++b) {
        tokens.push_back(states[b].length == 0 ? c.decoder_start_token
                                               : random_ids(rng, 1, c.target_vocab_size, false)[0]);
        history[b].push_back(tokens.back());
        batch.push_back(&states[b]);
      }
      const std::vector<float> logits = decoder.step(tokens, batch);
      for (size_t b = 0; b < states.size(); ++b) {
        INFO(when << ", state " << b << " of source " << source[b] << ", " << history[b].size()
                  << " tokens");
        REQUIRE(states[b].length == static_cast<int>(history[b].size()));
        CHECK(states[b].layers[0].self_k.size() == history[b].size() * width);
        Decoder fresh(c, m->weights);
        std::vector<DecoderState> alone = fresh.start(encoder.forward({sources[source[b]]}));
        const std::vector<float>& expected = fresh.prefix(history[b], alone[0]);
        CHECK_ALL_CLOSE(logits.data() + b * vocab,
                        expected.data() + (history[b].size() - 1) * vocab, vocab, 1e-5);
      }
    };
    const auto reorder = [&](const std::vector<int>& parents) {
      decoder.reorder(states, parents);
      std::vector<std::vector<int>> h;
      std::vector<int> s;
      for (int p : parents) {
        h.push_back(history[p]);
        s.push_back(source[p]);
      }
      history.swap(h);
      source.swap(s);
    };

    for (int t = 0; t < 3; ++t) step_and_check("before reordering");
    // Grow to 5 beams (repeats, one order changed), then shrink to 2 (drops, a permutation).
    reorder({1, 0, 1, 1, 0});
    for (int t = 0; t < 3; ++t) step_and_check("after growing to 5");
    reorder({4, 2});
    step_and_check("after shrinking to 2");
    reorder({1, 1, 0});
    for (int t = 0; t < 2; ++t) step_and_check("after reordering again");

    // Beams of one sentence share its cross-attention keys and values, never its cache.
    CHECK(states[0].layers[0].cross_k.same_storage(states[1].layers[0].cross_k));
    CHECK(states[0].layers[0].cross_v.same_storage(states[1].layers[0].cross_v));
    CHECK_FALSE(states[0].layers[0].cross_k.same_storage(states[2].layers[0].cross_k));
    CHECK(states[0].layers[0].self_k.data() != states[1].layers[0].self_k.data());

    CHECK_THROWS_AS(decoder.reorder(states, {3}), Error);
    CHECK_THROWS_AS(decoder.reorder(states, {-1}), Error);
  }
}

TEST_CASE("record: a cross-only record keeps one layer's cross attention, bit for bit",
          "[decoder][mask]") {
  for (const Variant& v : variants()) {
    INFO(v.name);
    auto m = variant_model(v, 3131);
    const ModelConfig& c = m->config;
    std::mt19937 rng(3232);
    const std::vector<int> source = random_ids(rng, 5, c.source_vocab_size, true);
    const std::vector<int> tokens = decoder_run(*m, rng, 7);
    for (int layer = 0; layer < c.decoder_layers; ++layer) {
      INFO("layer " << layer);
      AttentionRecord full, cross_only;
      cross_only.cross_only_layer = layer;
      for (AttentionRecord* r : {&full, &cross_only}) {
        r->encoder_layers = c.encoder_layers;
        r->decoder_layers = c.decoder_layers;
        r->heads = c.num_heads;
        r->source_length = static_cast<int>(source.size());
      }
      std::vector<std::vector<float>> logits;
      for (AttentionRecord* r : {&full, &cross_only}) {
        Encoder encoder(c, m->weights);
        Decoder decoder(c, m->weights);
        AttentionRecorder recorder(*r, c, m->weights);
        EncodedBatch encoded = encoder.forward({source}, {&recorder});
        std::vector<DecoderState> states = decoder.start(encoded, {&recorder});
        decoder.step({tokens[0]}, {&states[0]});  // a step, then a run: both ways of recording
        logits.push_back(decoder.prefix({tokens.begin() + 1, tokens.end()}, states[0]));
      }
      CHECK(logits[0] == logits[1]);
      CHECK(cross_only.encoder_self.empty());
      CHECK(cross_only.decoder_self_steps.empty());
      REQUIRE(cross_only.steps() == full.steps());
      for (int t = 0; t < full.steps(); ++t) {
        REQUIRE(cross_only.cross_steps[t].size() ==
                static_cast<size_t>(c.num_heads) * cross_only.source_length);
        for (int h = 0; h < c.num_heads; ++h)
          for (int j = 0; j < full.source_length; ++j)
            CHECK(cross_only.cross(layer, h, t, j) == full.cross(layer, h, t, j));
      }
    }
  }
}
