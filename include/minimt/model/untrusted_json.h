// JSON from a model directory is written by strangers: bound its nesting before nlohmann parses
// it (the parser and every recursive walk would need memory and stack per level), refuse what
// the parser would quietly drop (a NUL byte and what follows, the first of two equal keys), and
// never put a whole untrusted value, or an unbounded string, into an error message.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace minimt {

// Deepest nesting of arrays and objects minimt reads: config.json needs 4 (weights, tensor,
// shape), a safetensors header 3.
constexpr int kMaxJsonDepth = 32;

struct JsonTooDeep {
  size_t offset = 0;    // byte where nesting passes the limit
  std::string top_key;  // the top-level key whose value nests, "" if none (as written)
};

// Scans brackets outside strings, without parsing; finds where nesting first exceeds max_depth.
std::optional<JsonTooDeep> find_too_deep(const char* data, size_t size,
                                         int max_depth = kMaxJsonDepth);

// Names a place in the document for a message, from its keys (json_dom_builder.h): "key
// 'special_tokens.eos'" in config.json, "tensor 'W'" in a safetensors header.
using JsonPlaceNamer = std::function<std::string(const std::vector<std::string>& path)>;

// Parses `size` bytes after checking the nesting. Errors are ModelError(file, ...): `what_invalid`
// starts the message of a document that is not JSON ("is not valid JSON", or "has a header that
// is not valid JSON"); a NUL byte anywhere is such an error (nlohmann would end the text there and
// ignore the rest); a key given twice in one object is an error naming it.
nlohmann::json parse_untrusted_json(const char* data, size_t size, const std::string& file,
                                    const std::string& what_invalid, const JsonPlaceNamer& name);

// `text` fit for a one-line message: control characters escaped, at most max_bytes (cut on a
// UTF-8 boundary, "..." appended).
std::string printable(const std::string& text, size_t max_bytes = 80);

// A short description of a value without recursing: numbers, booleans, null and (shortened)
// strings as JSON; arrays and objects as "an array" / "an object".
std::string describe_json(const nlohmann::json& value);

// The keys of `object` that are not in `known`, in the object's order.
std::vector<std::string> unknown_keys(const nlohmann::json& object,
                                      const std::vector<std::string>& known);

// The key of `known` that `key` looks like a slip of (one to three letters changed, added,
// dropped or swapped, scaled with the key's length; case and '-' for '_' ignored); "" if none.
std::string closest_key(const std::string& key, const std::vector<std::string>& known);

}  // namespace minimt
