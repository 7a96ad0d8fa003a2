// ModelConfig: a format-v1 or v2 config.json parsed: the architecture the engine runs, plus the
// files the model floor reads (tokenizers, weights).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/model/generation_config.h"

namespace minimt {

struct ModelConfig : Architecture {
  static constexpr int kFormatVersion = 2;  // the newest this minimt reads; 1 still loads
  int format_version = kFormatVersion;

  // The last N pieces of each tokenizer (ids vocab_size .. vocab_size+N-1) are read as
  // special.unk: pieces a Hugging Face vocabulary lacks, kept so that SentencePiece cuts text
  // as before (format v2 key unknown_pieces).
  int source_unknown_pieces = 0;
  int target_unknown_pieces = 0;

  // Format v2 key "generation": the checkpoint's generate() settings (generation_config.h).
  GenerationConfig generation;

  std::string source_tokenizer;  // path relative to the model directory
  std::string target_tokenizer;
  // Either a relative path to a .safetensors file, or the inline tensor object.
  std::string weights_file;
  nlohmann::json inline_weights;  // null unless weights are inline
  // What the file says that minimt reads past (a key that looks like a slip of an optional
  // one), one message each, naming the file; the caller shows them.
  std::vector<std::string> warnings;

  // Parses and validates; `file` names config.json in error messages.
  static ModelConfig from_json(const nlohmann::json& json, const std::string& file);
  static ModelConfig load(const std::string& path);
};

}  // namespace minimt
