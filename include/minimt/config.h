// ModelConfig: the architecture and special tokens of a format-v1 model, parsed from config.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace minimt {

enum class Activation { kRelu, kGelu, kSilu };
enum class NormPosition { kPost, kPre };
enum class Positions { kSinusoidal, kLearned };

struct SpecialTokens {
  int pad = 0, unk = 1, bos = 2, eos = 3;
};

struct ModelConfig {
  static constexpr int kFormatVersion = 1;

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
  std::string source_tokenizer;  // path relative to the model directory
  std::string target_tokenizer;
  // Either a relative path to a .safetensors file, or the inline tensor object.
  std::string weights_file;
  nlohmann::json inline_weights;  // null unless weights are inline

  int attention_width() const { return num_heads * head_dim; }  // H * d_k

  // Parses and validates; `file` names config.json in error messages.
  static ModelConfig from_json(const nlohmann::json& json, const std::string& file);
  static ModelConfig load(const std::string& path);
};

const char* to_string(Activation activation);
const char* to_string(NormPosition norm);
const char* to_string(Positions positions);

}  // namespace minimt
