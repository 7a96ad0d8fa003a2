// Architecture: the numbers that describe a format-v1 or v2 Transformer, all the engine sees of a
// model (no paths, no files: those are the model floor's ModelConfig). The defaults are format
// v1's: a v1 model sets only the first block of fields.
#pragma once

#include <vector>

#include "minimt/base/enum_names.h"

namespace minimt {

// kGeluTanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), transformers' "gelu_new".
enum class Activation { kRelu, kGelu, kSilu, kGeluTanh };
enum class NormPosition { kPost, kPre };
// kSinusoidalSplit: fairseq's table (M2M100, NLLB), every sin first, then every cos, and pad
// tokens read a zero row; kNone: no absolute positions (T5).
enum class Positions { kSinusoidal, kLearned, kSinusoidalSplit, kNone };
enum class NormKind { kLayerNorm, kRmsNorm };
enum class FeedForwardKind { kStandard, kGated };

struct SpecialTokens {
  int pad = 0, unk = 1, bos = 2, eos = 3;
};

// T5's learned relative-position bias; buckets == 0 means none.
struct RelativeAttention {
  int buckets = 0;
  int max_distance = 0;
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

  // Format v2 (docs/model-format.md); the defaults are what v1 means.
  int position_offset = 0;  // token i reads position row i + position_offset
  RelativeAttention relative_attention;
  NormKind norm = NormKind::kLayerNorm;
  bool final_norms = false;  // a norm after each stack (v1: exactly when pre-norm)
  bool embedding_norm = false;
  bool scale_attention_scores = true;  // scores / sqrt(d_k)
  bool biases = true;                  // the Linear layers have biases
  FeedForwardKind feed_forward = FeedForwardKind::kStandard;
  float output_scale = 1.0f;       // the decoder output is multiplied by it before the logits
  int forced_first_token = -1;     // the first output token, forced; -1: none
  std::vector<int> source_prefix;  // ids before the source pieces
  std::vector<int> source_suffix;  // ids after them (v1: eos)

  int attention_width() const { return num_heads * head_dim; }  // H * d_k
};

// The names config.json gives them (config.cpp reads them, `minimt info` prints them).
inline constexpr EnumName<Activation> kActivationNames[] = {{"relu", Activation::kRelu},
                                                            {"gelu", Activation::kGelu},
                                                            {"silu", Activation::kSilu},
                                                            {"gelu_tanh", Activation::kGeluTanh}};
inline constexpr EnumName<NormPosition> kNormPositionNames[] = {{"post", NormPosition::kPost},
                                                                {"pre", NormPosition::kPre}};
inline constexpr EnumName<Positions> kPositionsNames[] = {
    {"sinusoidal", Positions::kSinusoidal},
    {"learned", Positions::kLearned},
    {"sinusoidal_split", Positions::kSinusoidalSplit},  // v2
    {"none", Positions::kNone}};                        // v2
inline constexpr EnumName<NormKind> kNormKindNames[] = {{"layer_norm", NormKind::kLayerNorm},
                                                        {"rms_norm", NormKind::kRmsNorm}};
inline constexpr EnumName<FeedForwardKind> kFeedForwardKindNames[] = {
    {"standard", FeedForwardKind::kStandard}, {"gated", FeedForwardKind::kGated}};

const char* to_string(Activation activation);
const char* to_string(NormPosition norm);
const char* to_string(Positions positions);
const char* to_string(NormKind norm);
const char* to_string(FeedForwardKind kind);

}  // namespace minimt
