// The sentence's own keys of the dump (sentence_keys.h).
#include "app/record/sentence_keys.h"

#include <cmath>

#include "app/record/json_lists.h"
#include "minimt/app/analysis/rollout.h"
#include "minimt/base/error.h"
#include "minimt/base/json_writer.h"
#include "minimt/base/utf8.h"

namespace minimt::dump_keys {
namespace {

using nlohmann::json;
namespace schema = dump_schema;

// The field of a key (Sentence: DumpSentence or const DumpSentence).
template <typename Sentence>
auto& tokens_of(Sentence& s, const std::string& key) {
  return key == schema::kSourceTokens         ? s.source_tokens
         : key == schema::kDecoderInputTokens ? s.decoder_input_tokens
                                              : s.output_tokens;
}

template <typename Sentence>
auto& rollout_of(Sentence& s, const std::string& key) {
  return key == schema::kEncoderRollout ? s.encoder_rollout : s.cross_rollout;
}

// {"token": S, "probability": F}
void write_choice(std::ostream& out, const std::pair<std::string, float>& choice) {
  out << "{\"" << schema::kToken << "\":" << json_string(choice.first) << ",\""
      << schema::kProbability << "\":";
  write_json_float(out, choice.second);
  out << '}';
}

// The entry under a key that holds one entry per output token, or nullptr if there is none.
const json* per_output_token(const json* value, const Slot& slot, const DumpSentence& s,
                             const Reading& r) {
  if (!value || value->is_null()) return nullptr;
  if (!value->is_array() || value->size() != s.output_tokens.size())
    throw Error(r.where + ": " + slot.key + " is not a list of one entry per output token");
  return value;
}

DumpRollout rollout_values(const RolloutMatrix& m) {
  DumpRollout out;
  out.present = true;
  out.rows = m.rows;
  out.cols = m.cols;
  out.values.reserve(m.values.size());
  for (double x : m.values) out.values.push_back(static_cast<float>(x));
  return out;
}

}  // namespace

std::string json_text(const std::string& text) {
  if (find_invalid_utf8(text) < 0) return text;
  return json::parse(json_string(text)).get<std::string>();
}

float probability_number(const json& value, bool logarithm, const std::string& where) {
  if (!value.is_number()) throw Error(where + " is not a number");
  const double x = value.get<double>();
  if (!std::isfinite(x) || x > (logarithm ? 1e-3 : 1.001) || (!logarithm && x < 0))
    throw Error(where + " is not a " + (logarithm ? "log-probability" : "probability") + ": " +
                value.dump());
  return static_cast<float>(x);
}

std::string index_text(std::initializer_list<size_t> at) {
  std::string text;
  for (size_t x : at) text += "[" + std::to_string(x) + "]";
  return text;
}

void record_tokens(const Recording& r, const Slot& slot, DumpSentence& s) {
  const Translation& t = r.translation;
  const Tokenizer& target = r.model.target_tokenizer();
  std::vector<std::string>& tokens = tokens_of(s, slot.key);
  if (slot.key == schema::kSourceTokens)
    for (int id : t.source_ids) tokens.push_back(json_text(r.model.source_tokenizer().piece(id)));
  for (size_t i = 0; i < t.output_ids.size(); ++i)
    if (slot.key == schema::kDecoderInputTokens)
      tokens.push_back(json_text(
          target.piece(i == 0 ? r.model.config().decoder_start_token : t.output_ids[i - 1])));
    else if (slot.key == schema::kOutputTokens)
      tokens.push_back(json_text(target.piece(t.output_ids[i])));
}

void write_tokens(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  const std::vector<std::string>& tokens = tokens_of(s, slot.key);
  open_key(out, slot, false);
  write_list(out, tokens.size(), [&](size_t i) { out << json_string(tokens[i]); });
}

void read_tokens(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  tokens_of(s, slot.key) =
      dump_read::string_list(value ? *value : json(), r.where + ": " + slot.key);
  if (slot.key == schema::kOutputTokens && s.output_tokens.size() != s.decoder_input_tokens.size())
    throw Error(r.where + ": output_tokens and decoder_input_tokens differ in length");
}

void record_given_tokens(const Recording& r, const Slot&, DumpSentence& s) {
  s.given_tokens = std::max(r.translation.given_tokens, 0);
}

void write_given_tokens(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  if (s.given_tokens <= 0) return;
  open_key(out, slot, false);
  out << s.given_tokens;
}

void read_given_tokens(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value) return;
  if (!value->is_number_unsigned() || value->get<size_t>() > s.output_tokens.size())
    throw Error(r.where + ": " + slot.key + " is not a count of output tokens");
  s.given_tokens = value->get<int>();
}

void record_log_probs(const Recording& r, const Slot&, DumpSentence& s) {
  const Translation& t = r.translation;
  if (t.log_probs.size() == t.output_ids.size()) s.output_log_probs = t.log_probs;
}

void write_log_probs(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  if (s.output_log_probs.size() != s.output_tokens.size()) return;
  open_key(out, slot, false);
  write_list(out, s.output_log_probs.size(),
             [&](size_t i) { write_json_float(out, s.output_log_probs[i]); });
}

void read_log_probs(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (const json* values = per_output_token(value, slot, s, r))
    for (size_t i = 0; i < values->size(); ++i)
      s.output_log_probs.push_back(probability_number(
          (*values)[i], true, r.where + ": " + slot.key + "[" + std::to_string(i) + "]"));
}

void record_alternatives(const Recording& r, const Slot&, DumpSentence& s) {
  const Tokenizer& target = r.model.target_tokenizer();
  for (const auto& position : r.translation.alternatives) {
    s.alternatives.emplace_back();
    for (const TokenProbability& p : position)
      s.alternatives.back().emplace_back(json_text(target.piece(p.id)), p.probability);
  }
}

void write_alternatives(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  if (s.alternatives.empty()) return;
  open_key(out, slot, false);
  write_list(out, s.alternatives.size(), [&](size_t i) {
    write_list(out, s.alternatives[i].size(),
               [&](size_t k) { write_choice(out, s.alternatives[i][k]); });
  });
}

void read_alternatives(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  const json* positions = per_output_token(value, slot, s, r);
  if (!positions) return;
  for (size_t i = 0; i < positions->size(); ++i) {
    const std::string at = r.where + ": " + slot.key + "[" + std::to_string(i) + "]";
    const json& position = (*positions)[i];
    if (!position.is_array() || position.size() > 1000)
      throw Error(at + " is not a list of at most 1000 alternatives");
    s.alternatives.emplace_back();
    for (const json& alternative : position) {
      if (!alternative.is_object() || !alternative.contains(schema::kToken))
        throw Error(at + " holds something other than {\"token\", \"probability\"} objects");
      s.alternatives.back().emplace_back(
          dump_read::string_field(alternative, schema::kToken, at),
          probability_number(alternative.value(schema::kProbability, json()), false,
                             at + ": " + schema::kProbability));
    }
  }
}

void record_rollouts(const Recording& r, const Slot&, DumpSentence& s) {
  const SentenceRollout rollout = sentence_rollout(r.record);
  s.encoder_rollout = rollout_values(rollout.encoder);
  s.cross_rollout = rollout_values(rollout.cross);
}

void write_rollout(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  const DumpRollout& m = rollout_of(s, slot.key);
  if (!m.present) return;
  open_key(out, slot, true);
  write_list(out, m.rows, [&](size_t i) {
    write_list(out, m.cols, [&](size_t j) { write_json_float(out, m.at(i, j)); });
  });
}

// One row per `rows` token, one weight in [0, 1] per `cols` token.
void read_rollout(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value || value->is_null()) return;
  const bool cross = slot.key == schema::kCrossRollout;
  const size_t rows = (cross ? s.decoder_input_tokens : s.source_tokens).size();
  const size_t cols = s.source_tokens.size();
  DumpRollout& m = rollout_of(s, slot.key);
  const std::string at = r.where + ": " + slot.key;
  if (!value->is_array() || value->size() != rows)
    throw Error(at + " should be a list of " + std::to_string(rows) + " rows");
  m.present = true;
  m.rows = static_cast<int>(rows);
  m.cols = static_cast<int>(cols);
  for (size_t i = 0; i < rows; ++i) {
    const json& row = (*value)[i];
    const std::string at_row = at + "[" + std::to_string(i) + "]";
    if (!row.is_array() || row.size() != cols)
      throw Error(at_row + " should have " + std::to_string(cols) +
                  " weights, one per source token");
    for (size_t j = 0; j < cols; ++j)
      m.values.push_back(probability_number(row[j], false, at_row + "[" + std::to_string(j) + "]"));
  }
}

void record_lens(const Recording& r, const Slot&, DumpSentence& s) {
  const Translation& t = r.translation;
  const Tokenizer& target = r.model.target_tokenizer();
  s.lens_present = true;
  for (int layer : r.decoder_layers) {
    s.layer_predictions.emplace_back();
    // No predictions: no output position.
    if (t.layer_predictions.empty()) continue;
    for (const auto& position : t.layer_predictions[layer]) {
      s.layer_predictions.back().emplace_back();
      for (const TokenProbability& p : position)
        s.layer_predictions.back().back().emplace_back(json_text(target.piece(p.id)),
                                                       p.probability);
    }
  }
  s.lens_layer_labels = dump_read::layer_labels(*schema::find_attention_type("decoder"), r.kept,
                                                static_cast<int>(r.decoder_layers.size()));
}

void write_lens(std::ostream& out, const Slot& slot, const DumpSentence& s) {
  if (!s.lens_present) return;
  open_key(out, slot, true);
  write_list(out, s.layer_predictions.size(), [&](size_t a) {
    const auto& positions = s.layer_predictions[a];
    write_list(out, positions.size(), [&](size_t i) {
      write_list(out, positions[i].size(), [&](size_t k) { write_choice(out, positions[i][k]); });
    });
  });
}

// [layer][T][{"token", "probability"}...].
void read_lens(const json* value, const Reading& r, const Slot& slot, DumpSentence& s) {
  if (!value || value->is_null()) return;
  const std::string at = r.where + ": " + slot.key;
  if (!value->is_array()) throw Error(at + " is not a list of layers");
  for (const char* type : {"decoder", "cross"}) {
    const AttentionMatrices* weights = s.find(type);
    if (weights && weights->layers() > 0 && value->size() != static_cast<size_t>(weights->layers()))
      throw Error(at + " has " + std::to_string(value->size()) + " layers, the decoder's weights " +
                  std::to_string(weights->layers()));
  }
  const size_t steps = s.decoder_input_tokens.size();
  s.lens_present = true;
  for (size_t l = 0; l < value->size(); ++l) {
    const json& layer = (*value)[l];
    if (!layer.is_array() || layer.size() != steps)
      throw Error(at + index_text({l}) + " should have " + std::to_string(steps) +
                  " entries, one per decoder input token");
    s.layer_predictions.emplace_back();
    for (size_t t = 0; t < steps; ++t) {
      const json& list = layer[t];
      if (!list.is_array() || list.size() > 1000)
        throw Error(at + index_text({l, t}) + " is not a list of at most 1000 tokens");
      s.layer_predictions.back().emplace_back();
      for (size_t k = 0; k < list.size(); ++k) {
        const json& item = list[k];
        const std::string here = at + index_text({l, t, k});
        if (!item.is_object() || !item.contains(schema::kToken) ||
            !item[schema::kToken].is_string())
          throw Error(here + " is not a {\"token\", \"probability\"} object");
        const json p = item.value(schema::kProbability, json());
        if (!p.is_number() || !std::isfinite(p.get<double>()) || p.get<double>() < 0 ||
            p.get<double>() > 1.001)
          throw Error(here + ": probability " + (p.is_number() ? p.dump() : "(not a number)") +
                      " is not in [0, 1]");
        s.layer_predictions.back().back().emplace_back(item[schema::kToken].get<std::string>(),
                                                       p.get<float>());
      }
    }
  }
  // The lens reads each decoder layer's output: the decoder's layer numbers.
  s.lens_layer_labels = dump_read::layer_labels(*schema::find_attention_type("decoder"),
                                                r.selection, static_cast<int>(value->size()));
}

}  // namespace minimt::dump_keys
