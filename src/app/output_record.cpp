#include "minimt/app/output_record.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace minimt {
namespace {

void append_quoted(std::string& out, const std::string& text) {
  out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// nlohmann::json would write the float as a double (-0.4344177186489105 for -0.43441772).
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

OutputRecord make_output_record(const Model& model, const Translation& t, long long line,
                                double time_ms) {
  OutputRecord record;
  record.line = line;
  record.source = t.source;
  record.time_ms = time_ms;
  if (!t.ok()) {
    record.error = t.error;
    return record;
  }
  record.translation = t.text;
  const Tokenizer& target = model.target_tokenizer();
  size_t count = t.output_ids.size();
  if (count > 0 && t.output_ids.back() == model.config().special.eos) --count;
  for (size_t i = 0; i < count; ++i) record.tokens.push_back(target.piece(t.output_ids[i]));
  record.score = t.score;
  record.truncated = t.truncated;
  return record;
}

std::string text_line(const OutputRecord& record) {
  std::string out = record.translation;
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  if (record.alignment) out += '\t' + *record.alignment;
  out += '\n';
  return out;
}

std::string jsonl_line(const OutputRecord& record) {
  std::string out = "{\"line\":" + std::to_string(record.line) + ",\"source\":";
  append_quoted(out, record.source);
  if (!record.error.empty()) {
    out += ",\"error\":";
    append_quoted(out, record.error);
  } else {
    out += ",\"translation\":";
    append_quoted(out, record.translation);
    out += ",\"tokens\":[";
    for (size_t i = 0; i < record.tokens.size(); ++i) {
      if (i) out += ',';
      append_quoted(out, record.tokens[i]);
    }
    out += "],\"score\":";
    append_float(out, record.score);
    if (record.truncated) out += ",\"truncated\":true";
    if (record.alignment) {
      out += ",\"alignment\":";
      append_quoted(out, *record.alignment);
    }
  }
  char time[32];
  std::snprintf(time, sizeof time, ",\"time_ms\":%.3f}\n", record.time_ms);
  out += time;
  return out;
}

}  // namespace minimt
