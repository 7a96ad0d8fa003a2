#include "minimt/model/untrusted_json.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "minimt/base/error.h"
#include "minimt/model/json_dom_builder.h"

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
      if (++depth > max_depth) return JsonTooDeep{i, last_top_string};
    } else if ((c == ']' || c == '}') && --depth < 0) {
      return std::nullopt;  // the parser stops at this bracket, before any deeper one
    }
  }
  return std::nullopt;
}

nlohmann::json parse_untrusted_json(const char* data, size_t size, const std::string& file,
                                    const std::string& what_invalid, const JsonPlaceNamer& name) {
  if (auto deep = find_too_deep(data, size)) {
    std::string where = deep->top_key.empty() ? "" : name({deep->top_key}) + " ";
    throw ModelError(file, where + "nests arrays and objects more than " +
                               std::to_string(kMaxJsonDepth) + " deep (at byte " +
                               std::to_string(deep->offset) + ")");
  }
  if (const void* nul = std::memchr(data, '\0', size))
    throw ModelError(file, what_invalid + ": a NUL byte at byte " +
                               std::to_string(static_cast<const char*>(nul) - data) +
                               " (JSON text has none)");
  JsonDomBuilder builder(kMaxJsonDepth + 1);  // the scan above has bounded it already
  nlohmann::json::sax_parse(data, data + size, &builder);
  switch (builder.problem()) {
    case JsonDomBuilder::Problem::kNone:
      return std::move(builder.document());
    case JsonDomBuilder::Problem::kDuplicateKey:
      throw ModelError(file, name(builder.path()) + " appears twice");
    case JsonDomBuilder::Problem::kSyntax:
    case JsonDomBuilder::Problem::kTooDeep:
      break;
  }
  throw ModelError(file,
                   what_invalid + ": " + printable(builder.syntax_message(), kMaxParserMessage));
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

std::vector<std::string> unknown_keys(const nlohmann::json& object,
                                      const std::vector<std::string>& known) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end()) unknown.push_back(key);
  return unknown;
}

namespace {

// Letters changed, added, dropped or swapped (optimal string alignment distance), after folding
// case and '-' to '_'; at most limit + 1 (keys whose lengths differ by more are not compared,
// so a hostile megabyte key costs nothing).
size_t slip_distance(const std::string& a, const std::string& b, size_t limit) {
  auto fold = [](char c) {
    return c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = fold(a[i - 1]) == fold(b[j - 1]);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return std::min(d[a.size()][b.size()], limit + 1);
}

}  // namespace

std::string closest_key(const std::string& key, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& candidate : known) {
    const size_t limit = std::min<size_t>(3, std::max<size_t>(1, candidate.size() / 4));
    const size_t distance = slip_distance(key, candidate, limit);
    if (distance <= limit && (best.empty() || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace minimt
