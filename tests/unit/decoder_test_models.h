// Seeded random models of several architectures (built in memory, no files) and helpers
// shared by the decoder, record and translator unit tests.
#pragma once

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "minimt/app/translate/translator.h"
#include "minimt/base/error.h"
#include "minimt/engine/attention.h"
#include "minimt/engine/attention_recorder.h"
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
inline const std::vector<Variant>& variants() {
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
      // Format v2: T5 (no positions, a relative bias, RMS norm, unscaled scores, no biases,
      // gated gelu_tanh, a scaled tied output), mBART (learned positions from 2, an embedding
      // norm, a forced first token) and M2M100 (fairseq's sinusoidal positions from 2).
      {"v2 T5: relative bias, rms_norm, unscaled, no biases, gated gelu_tanh, output scale",
       {{"format_version", 2},
        {"positions", "none"},
        {"relative_attention", {{"buckets", 8}, {"max_distance", 5}}},
        {"norm", "rms_norm"},
        {"norm_position", "pre"},
        {"scale_attention_scores", false},
        {"biases", false},
        {"feed_forward", "gated"},
        {"activation", "gelu_tanh"},
        {"output_scale", 0.35},
        {"head_dim", 3},
        {"scale_embeddings", false}},
       false},
      {"v2 mBART: learned positions from 2, embedding norm, forced first token",
       {{"format_version", 2},
        {"positions", "learned"},
        {"position_offset", 2},
        {"embedding_norm", true},
        {"norm_position", "pre"},
        {"forced_first_token", 7}},
       true},
      {"v2 M2M100: fairseq sinusoidal positions from 2, pre-norm",
       {{"format_version", 2},
        {"positions", "sinusoidal_split"},
        {"position_offset", 2},
        {"norm_position", "pre"}},
       false},
  };
  return list;
}

// How far a sentence's result may move with the batch it runs in. minimt's packed kernels sum
// every output in one order whatever the number of rows, and attention runs per sentence, so
// the result is bit-identical (0). OpenBLAS's sgemm blocks the product by the number of rows,
// which changes the summation order: each output then moves by up to about k*u*sum|x*w|
// (u = 2^-24, k <= 64 here), a few 1e-7 for these unit-scale activations, and layer norm can
// double it per layer; 1e-5 bounds that with margin for two layers.
inline double batch_tolerance() {
  return minimt::test::test_kernel() == minimt::LinearKernel::kOpenblas ? 1e-5 : 0.0;
}

inline std::unique_ptr<TestModel> variant_model(const Variant& v, unsigned seed) {
  return random_model(small_config(v.patch), seed, v.final_logits_bias);
}

// Logits of the last position after feeding tokens[0..count) to a fresh state, without the
// cache of earlier steps: one prefix pass over the whole run.
inline std::vector<float> recomputed_last_logits(const TestModel& m, const EncodedBatch& encoded,
                                                 const std::vector<int>& tokens, size_t count) {
  Decoder decoder(m.config, m.weights);
  std::vector<DecoderState> states = decoder.start(encoded);
  std::vector<int> run(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(count));
  const std::vector<float>& logits = decoder.prefix(run, states[0]);
  const size_t vocab = m.config.target_vocab_size;
  return std::vector<float>(logits.begin() + (count - 1) * vocab, logits.begin() + count * vocab);
}

// Decoder inputs: the start token, then random target ids.
inline std::vector<int> decoder_run(const TestModel& m, std::mt19937& rng, int length) {
  std::vector<int> tokens = random_ids(rng, length - 1, m.config.target_vocab_size, false);
  tokens.insert(tokens.begin(), m.config.decoder_start_token);
  return tokens;
}

}  // namespace
