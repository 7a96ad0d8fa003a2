// Reading config.json's keys with one clear error per bad key (the file and the key named);
// shared by the format-v1 keys (config.cpp) and the v2 ones (config_v2.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "minimt/base/error.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {

// Limits that keep a hostile config.json from asking for absurd allocations.
constexpr long long kMaxDimension = 1 << 16;
constexpr long long kMaxLayers = 1024;
constexpr long long kMaxPositions = 1 << 20;
constexpr long long kMaxVocab = 1 << 24;

class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& json, const std::string& file) : json_(json), file_(file) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw ModelError(file_, "key '" + key + "' " + what);
  }

  bool has(const std::string& key) const { return json_.contains(key); }

  const nlohmann::json& require(const std::string& key) const {
    auto it = json_.find(key);
    if (it == json_.end()) fail(key, "is missing");
    return *it;
  }

  long long integer(const nlohmann::json& value, const std::string& key, long long low,
                    long long high) const {
    if (!value.is_number_integer()) fail(key, "must be an integer, got " + describe_json(value));
    // An unsigned value past the range of long long would wrap: compare it unsigned.
    bool huge = value.is_number_unsigned() && value.get<unsigned long long>() > 1ull << 62;
    long long v = huge ? high + 1 : value.get<long long>();
    if (v < low || v > high)
      fail(key, "must be between " + std::to_string(low) + " and " + std::to_string(high) +
                    ", got " + describe_json(value));
    return v;
  }

  int integer(const std::string& key, long long low, long long high) const {
    return static_cast<int>(integer(require(key), key, low, high));
  }

  bool boolean(const std::string& key) const {
    const auto& value = require(key);
    if (!value.is_boolean()) fail(key, "must be true or false, got " + describe_json(value));
    return value.get<bool>();
  }

  std::string string(const std::string& key) const { return string(require(key), key); }

  std::string string(const nlohmann::json& value, const std::string& key) const {
    if (!value.is_string()) fail(key, "must be a string, got " + describe_json(value));
    return value.get<std::string>();
  }

  template <typename Enum, size_t N>
  Enum choice(const std::string& key, const std::pair<const char*, Enum> (&options)[N]) const {
    std::string value = string(key);
    std::string allowed;
    for (const auto& [name, option] : options) {
      if (value == name) return option;
      allowed += std::string(allowed.empty() ? "" : ", ") + '"' + name + '"';
    }
    fail(key, "must be one of " + allowed + ", got \"" + printable(value) + '"');
  }

  // Refuses a key of `object` (the value of `key`) that is not in `known`, naming the closest
  // known key when the unknown one looks like a slip of it.
  void refuse_unknown(const nlohmann::json& object, const std::string& key,
                      const std::vector<std::string>& known) const {
    for (const std::string& unknown : unknown_keys(object, known)) {
      const std::string near = closest_key(unknown, known);
      std::string listed;
      for (const std::string& name : known) listed += (listed.empty() ? "" : ", ") + name;
      fail(key + "." + printable(unknown),
           "is not a key of " + key +
               (near.empty() ? " (" + listed + ")" : " (did you mean '" + near + "'?)"));
    }
  }

  const nlohmann::json& json() const { return json_; }
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json& json_;
  const std::string& file_;
};

struct ModelConfig;

// The keys only format version 2 may hold (config_v2.cpp).
extern const std::vector<std::string> kFormatV2Keys;

// The format-v2 keys (config_v2.cpp): read and checked when format_version is 2, refused in a
// version-1 file; either way the fields they set get their meaning (v1: final norms exactly
// with pre-norm, the source ends with eos).
void read_format_v2(const ConfigReader& reader, ModelConfig& config);

// The format-v2 key "generation" (config_generation.cpp), after the other keys.
void read_generation(const ConfigReader& reader, ModelConfig& config);

}  // namespace minimt
