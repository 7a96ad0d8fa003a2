// Architecture: the numbers that describe a format-v1 Transformer, all the engine sees of a
// model (no paths, no files: those are the model floor's ModelConfig).
#pragma once

#include "minimt/base/enum_names.h"

namespace minimt {

enum class Activation { kRelu, kGelu, kSilu };
enum class NormPosition { kPost, kPre };
enum class Positions { kSinusoidal, kLearned };

struct SpecialTokens {
  int pad = 0, unk = 1, bos = 2, eos = 3;
};

struct Architecture {
  int d_model = 0;
  int num_heads = 0;
  int head_dim = 0;  // d_k = d_v; need not be d_model / num_heads
  int d_ff = 0;
  int encoder_layers = 0;
  int decoder_layers = 0;
  Activation activation = Activation::kRelu;
  NormPosition norm_position = NormPosition::kPost;
  float layer_norm_eps = 1e-5f;
  int max_positions = 0;
  Positions positions = Positions::kSinusoidal;
  bool scale_embeddings = true;
  int source_vocab_size = 0;
  int target_vocab_size = 0;
  bool tie_output = true;
  SpecialTokens special;
  int decoder_start_token = 0;

  int attention_width() const { return num_heads * head_dim; }  // H * d_k
};

// The names config.json gives them (config.cpp reads them, `minimt info` prints them).
inline constexpr EnumName<Activation> kActivationNames[] = {
    {"relu", Activation::kRelu}, {"gelu", Activation::kGelu}, {"silu", Activation::kSilu}};
inline constexpr EnumName<NormPosition> kNormPositionNames[] = {{"post", NormPosition::kPost},
                                                                {"pre", NormPosition::kPre}};
inline constexpr EnumName<Positions> kPositionsNames[] = {{"sinusoidal", Positions::kSinusoidal},
                                                          {"learned", Positions::kLearned}};

const char* to_string(Activation activation);
const char* to_string(NormPosition norm);
const char* to_string(Positions positions);

}  // namespace minimt
