// JSON from a model directory is written by strangers: bound its nesting before nlohmann parses
// it (the parser and every recursive walk would need memory and stack per level), and never
// put a whole untrusted value, or an unbounded string, into an error message.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace minimt {

// Deepest nesting of arrays and objects minimt reads: config.json needs 4 (weights, tensor,
// shape), a safetensors header 3.
constexpr int kMaxJsonDepth = 32;

struct JsonTooDeep {
  size_t offset = 0;    // byte where nesting passes the limit
  std::string top_key;  // the top-level key whose value nests, "" if none (printable)
};

// Scans brackets outside strings, without parsing; finds where nesting first exceeds max_depth.
std::optional<JsonTooDeep> find_too_deep(const char* data, size_t size,
                                         int max_depth = kMaxJsonDepth);

// Parses `size` bytes after checking the nesting. Errors are ModelError(file, ...): `prefix`
// starts each message ("" or "has a header that ..."), `key_kind` names top-level keys ("key"
// in config.json, "tensor" in a safetensors header).
nlohmann::json parse_untrusted_json(const char* data, size_t size, const std::string& file,
                                    const std::string& what_invalid, const std::string& key_kind);

// `text` fit for a one-line message: control characters escaped, at most max_bytes (cut on a
// UTF-8 boundary, "..." appended).
std::string printable(const std::string& text, size_t max_bytes = 80);

// A short description of a value without recursing: numbers, booleans, null and (shortened)
// strings as JSON; arrays and objects as "an array" / "an object".
std::string describe_json(const nlohmann::json& value);

}  // namespace minimt
