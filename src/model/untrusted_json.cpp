#include "minimt/model/untrusted_json.h"

#include <algorithm>
#include <cstdio>

#include "minimt/base/error.h"

namespace minimt {
namespace {

// A parser's message may quote the token it stopped at, which can be megabytes long.
constexpr size_t kMaxParserMessage = 200;

}  // namespace

std::optional<JsonTooDeep> find_too_deep(const char* data, size_t size, int max_depth) {
  int depth = 0;
  size_t string_start = 0;
  std::string last_top_string;  // at depth 1, the last string read: the key being nested
  for (size_t i = 0; i < size; ++i) {
    char c = data[i];
    if (c == '"') {
      string_start = ++i;
      while (i < size && data[i] != '"') i += data[i] == '\\' ? 2 : 1;
      if (depth == 1) last_top_string.assign(data + string_start, std::min(i, size) - string_start);
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return JsonTooDeep{i, printable(last_top_string)};
    } else if ((c == ']' || c == '}') && --depth < 0) {
      return std::nullopt;  // the parser stops at this bracket, before any deeper one
    }
  }
  return std::nullopt;
}

nlohmann::json parse_untrusted_json(const char* data, size_t size, const std::string& file,
                                    const std::string& what_invalid, const std::string& key_kind) {
  if (auto deep = find_too_deep(data, size)) {
    std::string where = deep->top_key.empty() ? "" : key_kind + " '" + deep->top_key + "' ";
    throw ModelError(file, where + "nests arrays and objects more than " +
                               std::to_string(kMaxJsonDepth) + " deep (at byte " +
                               std::to_string(deep->offset) + ")");
  }
  try {
    return nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(file, what_invalid + ": " + printable(e.what(), kMaxParserMessage));
  }
}

std::string printable(const std::string& text, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  for (; i < text.size() && out.size() < max_bytes; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (i == text.size()) return out;
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) {
    out += text[i];  // finish the UTF-8 sequence that was cut
    ++i;
  }
  return i == text.size() ? out : out + "...";
}

std::string describe_json(const nlohmann::json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_string()) return '"' + printable(value.get<std::string>()) + '"';
  return value.dump();  // a number, a boolean or null: short and flat
}

}  // namespace minimt
