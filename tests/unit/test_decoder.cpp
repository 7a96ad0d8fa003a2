// The engine's self-consistency on seeded random models (built here, no files):
//  - the causal mask: attention rows sum to 1, and a later decoder input never changes an
//    earlier position's logits;
//  - the K/V cache: step-by-step decoding equals recomputing the whole prefix at every step,
//    and cross-attention keys/values are projected once per sentence, never per step;
//  - attention records: a prefix run records what the same positions step by step record;
//  - beams: reordered states (DecoderState::copy_from) continue like their recomputed history;
//  - batches: a batch of sentences equals each sentence alone, in the encoder, the decoder and
//    the Translator;
//  - the Translator's per-sentence rules: blank input, invalid UTF-8, truncation.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "minimt/app/translator.h"
#include "minimt/base/error.h"
#include "minimt/engine/attention.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/search.h"
#include "minimt/model/model.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::json;
using minimt::test::random_ids;
using minimt::test::random_model;
using minimt::test::small_config;
using minimt::test::TestModel;

namespace {

struct Variant {
  const char* name;
  json patch;
  bool final_logits_bias;
};

// Architectures whose decoders take different paths: post/pre-norm, sinusoidal/learned
// positions, tied/untied output, head_dim unrelated to d_model / num_heads, several layers.
const std::vector<Variant>& variants() {
  static const std::vector<Variant> list = {
      {"post-norm, sinusoidal, tied, relu, 2+2 layers", json::object(), false},
      {"pre-norm, learned, lm_head + final_logits_bias, head_dim 5, gelu, 1+3 layers",
       {{"norm_position", "pre"},
        {"positions", "learned"},
        {"tie_output", false},
        {"d_model", 12},
        {"num_heads", 3},
        {"head_dim", 5},
        {"d_ff", 20},
        {"activation", "gelu"},
        {"encoder_layers", 1},
        {"decoder_layers", 3}},
       true},
      {"silu, unscaled embeddings, d_model 6, decoder start 5",
       {{"activation", "silu"},
        {"scale_embeddings", false},
        {"d_model", 6},
        {"num_heads", 2},
        {"decoder_start_token", 5}},
       true},
  };
  return list;
}

// How far a sentence's result may move with the batch it runs in. minimt's packed kernels sum
// every output in one order whatever the number of rows, and attention runs per sentence, so
// the result is bit-identical (0). OpenBLAS's sgemm blocks the product by the number of rows,
// which changes the summation order: each output then moves by up to about k*u*sum|x*w|
// (u = 2^-24, k <= 64 here), a few 1e-7 for these unit-scale activations, and layer norm can
// double it per layer; 1e-5 bounds that with margin for two layers.
double batch_tolerance() {
  return minimt::test::test_kernel() == minimt::LinearKernel::kOpenblas ? 1e-5 : 0.0;
}

std::unique_ptr<TestModel> variant_model(const Variant& v, unsigned seed) {
  return random_model(small_config(v.patch), seed, v.final_logits_bias);
}

// Logits of the last position after feeding tokens[0..count) to a fresh state, without the
// cache of earlier steps: one prefix pass over the whole run.
std::vector<float> recomputed_last_logits(const TestModel& m, const EncodedBatch& encoded,
                                          const std::vector<int>& tokens, size_t count) {
  Decoder decoder(m.config, m.weights);
  std::vector<DecoderState> states = decoder.start(encoded);
  std::vector<int> run(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(count));
  const std::vector<float>& logits = decoder.prefix(run, states[0]);
  const size_t vocab = m.config.target_vocab_size;
  return std::vector<float>(logits.begin() + (count - 1) * vocab, logits.begin() + count * vocab);
}

// Decoder inputs: the start token, then random target ids.
std::vector<int> decoder_run(const TestModel& m, std::mt19937& rng, int length) {
  std::vector<int> tokens = random_ids(rng, length - 1, m.config.target_vocab_size, false);
  tokens.insert(tokens.begin(), m.config.decoder_start_token);
  return tokens;
}

}  // namespace

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
    SearchOptions options{c.decoder_start_token, c.special.eos, 10};
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
  Encoder encoder(c, m->weights);
  EncodedBatch encoded = encoder.forward({source}, {&record});
  Decoder decoder(c, m->weights);
  std::vector<DecoderState> states = decoder.start(encoded, {&record});
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
    Decoder decoder(c, m->weights);
    std::vector<DecoderState> states = decoder.start(encoded, {&stepped});
    for (int token : tokens) decoder.step({token}, {&states[0]});

    // One prefix over the whole run; its logits are those of the same run without a record.
    AttentionRecord whole;
    states = decoder.start(encoded, {&whole});
    const std::vector<float> recorded_logits = decoder.prefix(tokens, states[0]);
    states = decoder.start(encoded);
    const std::vector<float> plain_logits = decoder.prefix(tokens, states[0]);
    CHECK(recorded_logits == plain_logits);

    // Runs and steps mixed: 2 steps, a run of 5 (not from position 0), a step, a run of 3.
    AttentionRecord mixed;
    states = decoder.start(encoded, {&mixed});
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
  multi_head_attention(q.data(), k.data(), values.data(), tq, tk, heads, head_dim, true,
                       context.data(), probs.data(), scratch);
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
    std::vector<AttentionRecord*> pointers;
    for (auto& r : batch_records) pointers.push_back(&r);
    Encoder encoder(c, m->weights);
    EncodedBatch batch = encoder.forward(sources, pointers);
    REQUIRE(batch.sentences() == 4);
    for (size_t b = 0; b < sources.size(); ++b) {
      INFO("sentence " << b);
      REQUIRE(batch.length(static_cast<int>(b)) == static_cast<int>(sources[b].size()));
      EncodedBatch alone = encoder.forward({sources[b]}, {&single_records[b]});
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

namespace {

// A model directory with seeded random inline weights and the hand model's 8-piece
// character tokenizer (<pad> <unk> <s> </s> a b \u2581 c) on both sides.
std::shared_ptr<const Model> random_model_dir(const minimt::test::TempDir& dir, json patch,
                                              unsigned seed) {
  patch["source_vocab_size"] = 8;
  patch["target_vocab_size"] = 8;
  patch["tokenizer"] = {{"source", "vocab.spm"}, {"target", "vocab.spm"}};
  json config = small_config(patch);
  ModelConfig parsed = ModelConfig::from_json(config, "config.json");
  config["weights"] = minimt::test::random_inline_weights(parsed, seed, true);
  minimt::test::write_file(dir.file("config.json"), config.dump());
  minimt::test::write_file(
      dir.file("vocab.spm"),
      minimt::test::read_file(minimt::test::fixture_path("hand-model/vocab.spm")));
  return Model::load(dir.path());
}

void check_same_translation(const Translation& a, const Translation& b) {
  CHECK(a.error == b.error);
  CHECK(a.source_ids == b.source_ids);
  CHECK(a.output_ids == b.output_ids);
  CHECK(a.text == b.text);
  CHECK(a.truncated == b.truncated);
  REQUIRE(a.log_probs.size() == b.log_probs.size());
  if (!a.log_probs.empty())
    CHECK_ALL_CLOSE(a.log_probs.data(), b.log_probs.data(), a.log_probs.size(), 1e-5);
  CHECK(a.score == Approx(b.score).margin(1e-4));
}

}  // namespace

TEST_CASE("translator: a batch of 3 translates like one by one", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 12}}, 1515);
  Translator translator(model);
  TranslateOptions options;
  options.max_length = 10;
  const std::vector<std::string> texts = {"abc", "c", "ba cab bca"};
  auto batch = translator.translate(texts, options);
  REQUIRE(batch.size() == 3);
  for (size_t i = 0; i < texts.size(); ++i) {
    INFO("sentence " << i << ": " << texts[i]);
    auto alone = translator.translate({texts[i]}, options);
    REQUIRE(alone.size() == 1);
    CHECK(batch[i].ok());
    CHECK(batch[i].source == texts[i]);
    CHECK_FALSE(batch[i].output_ids.empty());
    CHECK(batch[i].output_ids.size() <= 10u);
    check_same_translation(batch[i], alone[0]);
  }
  CHECK(batch[0].source_ids == std::vector<int>{6, 4, 5, 7, 3});  // \u2581 a b c </s>
}

TEST_CASE("translator: blank sentences give \"\" without running the model", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, json::object(), 1616);
  Translator translator(model);
  const uint64_t before = ops::gemm_flops();
  auto blank = translator.translate({"", "   ", "\t \r\n"});
  CHECK(ops::gemm_flops() == before);  // no matrix product at all
  REQUIRE(blank.size() == 3);
  for (const Translation& t : blank) {
    CHECK(t.ok());
    CHECK(t.text.empty());
    CHECK(t.output_ids.empty());
    CHECK(t.source_ids.empty());
  }
  // Blank lines inside a batch leave the others as they are alone.
  auto mixed = translator.translate({"ab", "", "ca", " "});
  REQUIRE(mixed.size() == 4);
  CHECK(mixed[1].text.empty());
  CHECK(mixed[1].output_ids.empty());
  CHECK(mixed[3].text.empty());
  check_same_translation(mixed[0], translator.translate({"ab"})[0]);
  check_same_translation(mixed[2], translator.translate({"ca"})[0]);
}

TEST_CASE("translator: invalid UTF-8 fails that sentence only", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, json::object(), 1717);
  Translator translator(model);
  const std::vector<std::string> bad = {
      "a\xff"
      "b",             // a byte that never appears in UTF-8
      "ab\xc0\xaf",    // overlong encoding of '/'
      "\xed\xa0\x80",  // a UTF-16 surrogate
      "abc\xe2\x82",   // a sequence cut short
      "\x80"
      "abc",  // a lone continuation byte
  };
  for (const std::string& text : bad) {
    INFO("bad input of " << text.size() << " bytes");
    auto results = translator.translate({"ab", text, "ca"});
    REQUIRE(results.size() == 3);
    CHECK_FALSE(results[1].ok());
    CHECK_THAT(results[1].error, Catch::Contains("UTF-8"));
    CHECK(results[1].text.empty());
    CHECK(results[1].output_ids.empty());
    check_same_translation(results[0], translator.translate({"ab"})[0]);
    check_same_translation(results[2], translator.translate({"ca"})[0]);
  }
  CHECK_THAT(translator.translate({"ab\xff"})[0].error, Catch::Contains("byte 2"));
  // Valid multi-byte text is not an error (the characters are unknown pieces).
  auto valid = translator.translate({"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"});
  CHECK(valid[0].ok());
}

TEST_CASE("translator: a long source is cut to max_positions, keeping the final eos",
          "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 6}}, 1818);
  Translator translator(model);
  const std::string text = "abcabcabc";  // \u2581 a b c a b c a b c: 10 pieces, 11 with eos
  const std::vector<int> pieces = model->source_tokenizer().encode(text);
  REQUIRE(pieces.size() == 10);

  bool truncated = false;
  std::vector<int> ids = translator.source_ids(text, &truncated);
  CHECK(truncated);
  REQUIRE(ids.size() == 6);
  CHECK(ids.back() == 3);  // eos
  CHECK(std::vector<int>(ids.begin(), ids.end() - 1) ==
        std::vector<int>(pieces.begin(), pieces.begin() + 5));

  auto results = translator.translate({text, "ab"});
  CHECK(results[0].truncated);
  CHECK(results[0].source_ids == ids);
  CHECK(results[0].ok());
  CHECK(results[0].output_ids.size() <= 6u);  // max_length is capped at max_positions
  CHECK_FALSE(results[1].truncated);
  CHECK(results[1].source_ids == std::vector<int>{6, 4, 5, 3});

  // Exactly max_positions with eos is not cut: 5 pieces + eos.
  truncated = true;
  CHECK(translator.source_ids("abca", &truncated).size() == 6);
  CHECK_FALSE(truncated);
  CHECK(translator.effective_max_length(256) == 6);
  CHECK(translator.effective_max_length(2) == 2);
  CHECK(translator.effective_max_length(-1) == 0);
}

TEST_CASE("translator: max_length bounds the output and recorded attention covers each step",
          "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 12}}, 1919);
  Translator translator(model);
  TranslateOptions options;
  options.max_length = 3;
  options.record_attention = true;
  auto results = translator.translate({"abc", "b"}, options);
  for (const Translation& t : results) {
    REQUIRE(t.ok());
    CHECK(t.output_ids.size() <= 3u);
    REQUIRE(t.attention);
    CHECK(t.attention->steps() == static_cast<int>(t.output_ids.size()));
    CHECK(t.attention->source_length == static_cast<int>(t.source_ids.size()));
    // The generated ids stop at the first eos.
    for (size_t i = 0; i + 1 < t.output_ids.size(); ++i) CHECK(t.output_ids[i] != 3);
  }
  options.max_length = 0;
  auto none = translator.translate({"abc"}, options);
  CHECK(none[0].output_ids.empty());
  CHECK(none[0].text.empty());
}
