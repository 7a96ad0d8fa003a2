#include "minimt/app/run/output_record.h"

#include "minimt/app/record/attributions.h"
#include "minimt/base/json_writer.h"
#include "minimt/base/visible_text.h"

namespace minimt {
namespace {

void append_strings(std::string& out, const std::vector<std::string>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, values[i]);
  }
  out += ']';
}

void append_floats(std::string& out, const std::vector<float>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    append_json_float(out, values[i]);
  }
  out += ']';
}

void append_key(std::string& out, const char* key) {
  out += ",\"";
  out += key;
  out += "\":";
}

// ,"key":value for the value types of a record.
void append_field(std::string& out, const char* key, const std::vector<std::string>& values) {
  append_key(out, key);
  append_strings(out, values);
}

void append_field(std::string& out, const char* key, const std::vector<float>& values) {
  append_key(out, key);
  append_floats(out, values);
}

void append_field(std::string& out, const char* key, float value) {
  append_key(out, key);
  append_json_float(out, value);
}

void append_field(std::string& out, const char* key, const std::string& value) {
  append_key(out, key);
  append_json_string(out, value);
}

// "tokens", "score" and "token_log_probs", and the fields only some records have.
void append_output(std::string& out, const OutputRecord& record) {
  append_field(out, "tokens", record.tokens);
  append_field(out, "score", record.score);
  append_field(out, "token_log_probs", record.token_log_probs);
  if (record.ranking_score) {
    append_field(out, "ranking_score", static_cast<float>(*record.ranking_score));
  }
  if (record.cut_short) out += ",\"cut_short\":true";
}

void append_details(std::string& out, const OutputRecord& record) {
  if (!record.unknown.empty()) {
    append_field(out, "unknown", record.unknown);
  }
  if (!record.target_unknown.empty()) {
    append_field(out, "target_unknown", record.target_unknown);
  }
  if (!record.alternatives.empty()) {
    append_key(out, "alternatives");
    out += '[';
    for (size_t t = 0; t < record.alternatives.size(); ++t) {
      out += t ? ",[" : "[";
      for (size_t k = 0; k < record.alternatives[t].size(); ++k) {
        out += k ? ",{\"token\":" : "{\"token\":";
        append_json_string(out, record.alternatives[t][k].first);
        out += ",\"probability\":";
        append_json_float(out, record.alternatives[t][k].second);
        out += '}';
      }
      out += ']';
    }
    out += ']';
  }
  if (record.truncated) out += ",\"truncated\":true";
  if (record.alignment) {
    append_field(out, "alignment", *record.alignment);
  }
  if (record.attributions) {
    append_key(out, "attributions");
    append_attributions_json(out, dump_attributions(*record.attributions, record.attribution),
                             record.attributions->source_length,
                             record.attributions->target_length);
  }
}

void append_time(std::string& out, const OutputRecord& record) {
  append_key(out, "time_ms");
  append_json_fixed(out, record.time_ms, 3);
  out += "}\n";
}

// A translation as a field of a text line: the model's pieces may hold a tab, a newline or an
// escape sequence (a vocabulary is a file from elsewhere), which would add a column or a line or
// act on the terminal; they are written out as visible_text does (--format jsonl keeps the bytes).
std::string field_text(const std::string& text) {
  return visible_text(text);
}

}  // namespace

OutputRecord make_output_record(const Model& model, const Translation& t, long long line,
                                double time_ms, bool scoring) {
  OutputRecord record;
  record.line = line;
  record.source = t.source;
  record.target = t.target;
  record.time_ms = time_ms;
  if (!t.ok()) {
    record.error = t.error;
    return record;
  }
  record.translation = t.text;
  const Tokenizer& target = model.target_tokenizer();
  // One rule for every command and format: a token per log-probability, the eos included.
  for (int id : t.output_ids) record.tokens.push_back(target.piece(id));
  record.token_log_probs = t.log_probs;
  record.score = t.score;
  record.truncated = t.truncated;
  record.cut_short = !scoring && !t.finished;
  record.unknown = t.unknown;
  record.target_unknown = t.target_unknown;
  record.attributions = t.attributions;
  record.attribution = t.attribution;
  for (const auto& position : t.alternatives) {
    record.alternatives.emplace_back();
    for (const TokenProbability& token : position)
      record.alternatives.back().emplace_back(target.piece(token.id), token.probability);
  }
  for (const Translation& entry : t.n_best)
    record.n_best.push_back(make_output_record(model, entry, line, time_ms, scoring));
  return record;
}

std::string text_line(const OutputRecord& record) {
  std::string out = field_text(record.translation);
  if (record.alignment) out += '\t' + *record.alignment;
  out += '\n';
  return out;
}

std::string n_best_text_lines(const OutputRecord& record) {
  const std::string line = std::to_string(record.line) + '\t';
  if (!record.error.empty() || record.n_best.empty()) {
    std::string out = line + "1\t\t";
    if (record.alignment) out += '\t' + *record.alignment;
    return out + '\n';
  }
  std::string out;
  for (size_t rank = 0; rank < record.n_best.size(); ++rank) {
    const OutputRecord& entry = record.n_best[rank];
    out += line + std::to_string(rank + 1) + '\t';
    // The number that ranks: with a length penalty, the ranking score, not the log-probability.
    append_json_float(out,
                      entry.ranking_score ? static_cast<float>(*entry.ranking_score) : entry.score);
    out += '\t' + field_text(entry.translation);
    if (entry.alignment) out += '\t' + *entry.alignment;
    out += '\n';
  }
  return out;
}

std::string score_text_line(const OutputRecord& record) {
  std::string out;
  if (record.error.empty()) append_json_float(out, record.score);
  if (record.alignment) out += '\t' + *record.alignment;
  return out + '\n';
}

std::string jsonl_line(const OutputRecord& record) {
  std::string out = "{\"line\":" + std::to_string(record.line) + ",\"source\":";
  append_json_string(out, record.source);
  if (!record.error.empty()) {
    append_field(out, "error", record.error);
    append_time(out, record);
    return out;
  }
  append_field(out, "translation", record.translation);
  append_output(out, record);
  append_details(out, record);
  if (record.has_n_best) {
    append_key(out, "n_best");
    out += '[';
    for (size_t rank = 0; rank < record.n_best.size(); ++rank) {
      const OutputRecord& entry = record.n_best[rank];
      out += rank ? ",{\"translation\":" : "{\"translation\":";
      append_json_string(out, entry.translation);
      append_output(out, entry);
      if (entry.alignment) {
        append_field(out, "alignment", *entry.alignment);
      }
      out += '}';
    }
    out += ']';
  }
  append_time(out, record);
  return out;
}

std::string score_jsonl_line(const OutputRecord& record) {
  std::string out = "{\"line\":" + std::to_string(record.line) + ",\"source\":";
  append_json_string(out, record.source);
  append_field(out, "target", record.target);
  if (!record.error.empty()) {
    append_field(out, "error", record.error);
  } else {
    append_field(out, "tokens", record.tokens);
    append_field(out, "token_log_probs", record.token_log_probs);
    append_field(out, "score", record.score);
    append_details(out, record);
  }
  append_time(out, record);
  return out;
}

}  // namespace minimt
