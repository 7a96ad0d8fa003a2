#include "minimt/model/config.h"

#include <algorithm>

#include "minimt/base/enum_names.h"
#include "minimt/base/error.h"
#include "minimt/model/json_dom_builder.h"
#include "minimt/model/paths.h"
#include "minimt/model/untrusted_json.h"
#include "model/config_reader.h"

namespace minimt {
namespace {

// config.json is read whole and parsed into a tree of up to about 25 bytes of memory and 0.15 us
// per input byte; inline weights are for small hand-written models (a larger model uses a
// safetensors file).
constexpr size_t kMaxConfigBytes = 8u << 20;

// Every key format v1 defines (docs/model-format.md): anything else is a slip or another format.
const std::vector<std::string> kRequiredKeys = {"format",
                                                "format_version",
                                                "d_model",
                                                "num_heads",
                                                "d_ff",
                                                "encoder_layers",
                                                "decoder_layers",
                                                "activation",
                                                "norm_position",
                                                "layer_norm_eps",
                                                "max_positions",
                                                "positions",
                                                "scale_embeddings",
                                                "source_vocab_size",
                                                "target_vocab_size",
                                                "tie_output",
                                                "special_tokens",
                                                "tokenizer",
                                                "weights"};
const std::vector<std::string> kOptionalKeys = {"head_dim", "decoder_start_token"};
const std::vector<std::string> kSpecialTokenKeys = {"pad", "unk", "bos", "eos"};
const std::vector<std::string> kTokenizerKeys = {"source", "target"};

std::string relative_path(const ConfigReader& reader, const nlohmann::json& value,
                          const std::string& key) {
  std::string path = reader.string(value, key);
  if (!is_safe_relative_path(path))
    reader.fail(key,
                "must be a path inside the model directory (no absolute path, no '..'), got \"" +
                    printable(path) + '"');
  return path;
}

// A top-level key the file's format version does not define is refused, unless it looks like a
// slip of an optional key: then the model still reads as the file's author may have meant it,
// with that key's default, and the warning says which key the default stands for. The v2 keys
// are known in a v1 file too, so that read_format_v2 names the version they need.
void check_top_level_keys(const ConfigReader& reader, int version,
                          std::vector<std::string>& warnings) {
  std::vector<std::string> optional = kOptionalKeys;
  if (version >= 2) optional.insert(optional.end(), kFormatV2Keys.begin(), kFormatV2Keys.end());
  std::vector<std::string> known = kRequiredKeys;
  known.insert(known.end(), kOptionalKeys.begin(), kOptionalKeys.end());
  known.insert(known.end(), kFormatV2Keys.begin(), kFormatV2Keys.end());
  const std::string not_defined = "is not a format-v" + std::to_string(version) + " key";
  for (const std::string& unknown : unknown_keys(reader.json(), known)) {
    const std::string near = closest_key(unknown, known);
    const bool slip_of_optional =
        std::find(optional.begin(), optional.end(), near) != optional.end();
    if (slip_of_optional && !reader.has(near)) {
      warnings.push_back(reader.file() + ": key '" + printable(unknown) + "' " + not_defined +
                         " and is ignored; did you mean '" + near +
                         "'? (it is optional: its default is used)");
      continue;
    }
    reader.fail(printable(unknown),
                not_defined + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
}

// "format" and "format_version" (1 or 2).
int check_format(ConfigReader& reader, const nlohmann::json& json) {
  if (reader.string("format") != "minimt-transformer")
    reader.fail("format", "must be \"minimt-transformer\", got " + describe_json(json["format"]));
  const auto& version = reader.require("format_version");
  if (!version.is_number_integer()) reader.fail("format_version", "must be an integer");
  if (version.get<long long>() > ModelConfig::kFormatVersion)
    reader.fail("format_version",
                "is " + describe_json(version) + ", newer than this minimt supports (" +
                    std::to_string(ModelConfig::kFormatVersion) + "); upgrade minimt");
  if (version.get<long long>() < 1)
    reader.fail("format_version", "must be 1 or " + std::to_string(ModelConfig::kFormatVersion) +
                                      ", got " + describe_json(version));
  return static_cast<int>(version.get<long long>());
}

// The architecture's sizes and choices.
void read_architecture(ConfigReader& reader, const nlohmann::json& json, ModelConfig& c) {
  c.d_model = reader.integer("d_model", 1, kMaxDimension);
  c.num_heads = reader.integer("num_heads", 1, kMaxDimension);
  if (json.contains("head_dim")) {
    c.head_dim = reader.integer("head_dim", 1, kMaxDimension);
  } else {
    if (c.d_model % c.num_heads != 0)
      reader.fail("head_dim", "is missing and d_model (" + std::to_string(c.d_model) +
                                  ") is not divisible by num_heads (" +
                                  std::to_string(c.num_heads) + ")");
    c.head_dim = c.d_model / c.num_heads;
  }
  if (static_cast<long long>(c.num_heads) * c.head_dim > kMaxDimension)
    reader.fail("head_dim", "times num_heads exceeds " + std::to_string(kMaxDimension));
  c.d_ff = reader.integer("d_ff", 1, kMaxDimension * 4);
  c.encoder_layers = reader.integer("encoder_layers", 1, kMaxLayers);
  c.decoder_layers = reader.integer("decoder_layers", 1, kMaxLayers);

  c.activation = reader.choice("activation", kActivationNames);
  c.norm_position = reader.choice("norm_position", kNormPositionNames);
  c.positions = reader.choice("positions", kPositionsNames);

  const auto& eps = reader.require("layer_norm_eps");
  if (!eps.is_number() || !(eps.get<double>() > 0.0) || !(eps.get<double>() < 1.0))
    reader.fail("layer_norm_eps", "must be a number between 0 and 1, got " + describe_json(eps));
  c.layer_norm_eps = static_cast<float>(eps.get<double>());

  c.max_positions = reader.integer("max_positions", 2, kMaxPositions);
  c.scale_embeddings = reader.boolean("scale_embeddings");
  c.source_vocab_size = reader.integer("source_vocab_size", 1, kMaxVocab);
  c.target_vocab_size = reader.integer("target_vocab_size", 1, kMaxVocab);
  c.tie_output = reader.boolean("tie_output");
}

// special_tokens and decoder_start_token (after the vocabulary sizes, which bound them).
void read_special_tokens(ConfigReader& reader, const nlohmann::json& json, ModelConfig& c) {
  const auto& special = reader.require("special_tokens");
  if (!special.is_object()) reader.fail("special_tokens", "must be an object");
  reader.refuse_unknown(special, "special_tokens", kSpecialTokenKeys);
  auto special_id = [&](const char* name) {
    std::string key = std::string("special_tokens.") + name;
    auto it = special.find(name);
    if (it == special.end()) reader.fail(key, "is missing");
    int limit = std::min(c.source_vocab_size, c.target_vocab_size) - 1;
    return static_cast<int>(reader.integer(*it, key, 0, limit));
  };
  c.special.pad = special_id("pad");
  c.special.unk = special_id("unk");
  c.special.bos = special_id("bos");
  c.special.eos = special_id("eos");
  c.decoder_start_token = json.contains("decoder_start_token")
                              ? reader.integer("decoder_start_token", 0, c.target_vocab_size - 1)
                              : c.special.bos;
}

// The files the model names: the tokenizers and the weights (or inline weights).
void read_files(ConfigReader& reader, ModelConfig& c) {
  const auto& tokenizer = reader.require("tokenizer");
  if (!tokenizer.is_object()) reader.fail("tokenizer", "must be an object");
  reader.refuse_unknown(tokenizer, "tokenizer", kTokenizerKeys);
  for (const char* side : {"source", "target"})
    if (!tokenizer.contains(side)) reader.fail(std::string("tokenizer.") + side, "is missing");
  c.source_tokenizer = relative_path(reader, tokenizer["source"], "tokenizer.source");
  c.target_tokenizer = relative_path(reader, tokenizer["target"], "tokenizer.target");

  const auto& weights = reader.require("weights");
  if (weights.is_object())
    c.inline_weights = weights;
  else if (weights.is_string())
    c.weights_file = relative_path(reader, weights, "weights");
  else
    reader.fail("weights", "must be a file name or an object of inline tensors");
}

}  // namespace

ModelConfig ModelConfig::from_json(const nlohmann::json& json, const std::string& file) {
  if (!json.is_object()) throw ModelError(file, "must hold a JSON object");
  ConfigReader reader(json, file);
  ModelConfig c;
  c.format_version = check_format(reader, json);
  check_top_level_keys(reader, c.format_version, c.warnings);
  read_architecture(reader, json, c);
  read_special_tokens(reader, json, c);
  read_files(reader, c);
  read_format_v2(reader, c);  // the v2 keys, or their v1 meaning
  return c;
}

ModelConfig ModelConfig::load(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxConfigBytes);
  auto name_key = [](const std::vector<std::string>& keys) {
    return "key '" + json_path_text(keys) + "'";
  };
  return from_json(
      parse_untrusted_json(text.data(), text.size(), path, "is not valid JSON", name_key), path);
}

}  // namespace minimt
