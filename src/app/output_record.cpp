#include "minimt/app/output_record.h"

#include "minimt/base/json_writer.h"

namespace minimt {

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
  append_json_string(out, record.source);
  if (!record.error.empty()) {
    out += ",\"error\":";
    append_json_string(out, record.error);
  } else {
    out += ",\"translation\":";
    append_json_string(out, record.translation);
    out += ",\"tokens\":[";
    for (size_t i = 0; i < record.tokens.size(); ++i) {
      if (i) out += ',';
      append_json_string(out, record.tokens[i]);
    }
    out += "],\"score\":";
    append_json_float(out, record.score);
    if (record.truncated) out += ",\"truncated\":true";
    if (record.alignment) {
      out += ",\"alignment\":";
      append_json_string(out, *record.alignment);
    }
  }
  out += ",\"time_ms\":";
  append_json_fixed(out, record.time_ms, 3);
  out += "}\n";
  return out;
}

}  // namespace minimt
