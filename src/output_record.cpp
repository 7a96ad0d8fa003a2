#include "minimt/output_record.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace minimt {
namespace {

void append_quoted(std::string& out, const std::string& text) {
  out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void append_float(std::string& out, float value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round-trip
  out.append(buffer, result.ptr);
}

}  // namespace

std::string text_record(const Translation& translation) {
  std::string out = translation.ok() ? translation.text : std::string();
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  out += '\n';
  return out;
}

std::string jsonl_record(const Model& model, const Translation& t, long long line, double time_ms) {
  std::string out = "{\"line\":" + std::to_string(line) + ",\"source\":";
  append_quoted(out, t.source);
  if (!t.ok()) {
    out += ",\"error\":";
    append_quoted(out, t.error);
  } else {
    out += ",\"translation\":";
    append_quoted(out, t.text);
    out += ",\"tokens\":[";
    const Tokenizer& target = model.target_tokenizer();
    size_t count = t.output_ids.size();
    if (count > 0 && t.output_ids.back() == model.config().special.eos) --count;
    for (size_t i = 0; i < count; ++i) {
      if (i) out += ',';
      append_quoted(out, target.piece(t.output_ids[i]));
    }
    out += "],\"score\":";
    append_float(out, t.score);
    if (t.truncated) out += ",\"truncated\":true";
  }
  char time[32];
  std::snprintf(time, sizeof time, ",\"time_ms\":%.3f}\n", time_ms);
  out += time;
  return out;
}

}  // namespace minimt
