#include "minimt/app/record/dump_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <streambuf>

#include "app/record/dump_extras_reader.h"
#include "app/record/dump_selection.h"
#include "minimt/base/error.h"
#include "minimt/model/json_dom_builder.h"

namespace minimt {
namespace {

using nlohmann::json;
namespace schema = dump_schema;
using dump_read::Selection;
using dump_read::string_field;

std::vector<std::string> string_list(const json& value, const std::string& where) {
  if (value.is_null()) return {};
  if (!value.is_array()) throw Error(where + " is not a list");
  std::vector<std::string> out;
  for (const json& item : value) {
    if (!item.is_string()) throw Error(where + " holds something other than strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// How far a dumped weight may stray from what softmax can give (float32 rounding, with room).
constexpr double kWeightTolerance = 1e-5;
// How far a row's sum may stray from 1: its weights' rounding, added up.
constexpr double kRowSumTolerance = 1e-3;

// A number for a message: a weight as the dump wrote it (9 digits: every float), a sum to 6.
std::string number_text(double x, int digits = 9) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// A weight from the dump, checked before it is narrowed to a float (1e308 would be inf): softmax
// gives numbers in [0, 1].
float weight_value(const json& x, const std::string& at) {
  if (!x.is_number()) throw Error(at + " holds something not a number");
  const double w = x.get<double>();
  if (!(w >= -kWeightTolerance && w <= 1 + kWeightTolerance))
    throw Error(at + " is " + number_text(w) + ", not an attention weight (0 to 1)");
  return static_cast<float>(w);
}

// The rows of one head are what softmax gives (each weight in [0, 1] is checked as it is read):
// each row sums to 1, or is all 0 for a head --ablate-heads switched off; under the causal mask (a
// decoder position cannot see a later one) exactly 0. Throws Error naming the weight or row.
void check_head_weights(const AttentionMatrices& m, int layer, int head, bool causal,
                        const std::string& at_head) {
  for (int i = 0; i < m.rows; ++i) {
    double sum = 0;
    for (int j = 0; j < m.cols; ++j) {
      const float w = m.at(layer, head, i, j);
      if (causal && j > i && w != 0)
        throw Error(at_head + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                    number_text(w) + " above the causal diagonal, where a " +
                    "decoder position reads no later one: it must be 0");
      sum += w;
    }
    const bool switched_off = m.is_masked(layer, head) && sum == 0;
    if (!switched_off && std::fabs(sum - 1) > kRowSumTolerance)
      throw Error(
          at_head + "[" + std::to_string(i) + "] sums to " + number_text(sum, 6) +
          ", not 1: attention weights are a softmax" +
          (m.is_masked(layer, head) ? " (or all 0 for a head --ablate-heads switched off)" : ""));
  }
}

// Every head's weights checked (check_head_weights), after mark_masked.
void check_weights(const AttentionMatrices& m, bool causal, const std::string& where) {
  for (int l = 0; l < m.layers(); ++l)
    for (size_t h = 0; h < m.heads.size(); ++h)
      check_head_weights(m, l, static_cast<int>(h), causal,
                         where + "[" + std::to_string(l) + "][" + std::to_string(h) + "]");
}

const char* axis_token(schema::Axis axis) {
  return axis == schema::Axis::kSource ? "source token" : "decoder input token";
}

// [layers][heads][rows][cols] numbers into `m`; checks every dimension.
void read_matrices(const json& value, const std::string& where, AttentionMatrices& m,
                   const std::string& rows_are, const std::string& cols_are) {
  if (!value.is_array()) throw Error(where + " is not a list of layers");
  const size_t heads = m.heads.size();
  for (size_t l = 0; l < value.size(); ++l) {
    const json& layer = value[l];
    std::string at = where + "[" + std::to_string(l) + "]";
    if (!layer.is_array() || layer.size() != heads)
      throw Error(at + " should be a list of " + std::to_string(heads) +
                  " heads (the dump's selection.heads)");
    for (size_t h = 0; h < heads; ++h) {
      const json& matrix = layer[h];
      std::string at_head = at + "[" + std::to_string(h) + "]";
      if (!matrix.is_array() || matrix.size() != static_cast<size_t>(m.rows))
        throw Error(at_head + " should have " + std::to_string(m.rows) + " rows, one per " +
                    rows_are);
      for (int i = 0; i < m.rows; ++i) {
        const json& row = matrix[i];
        if (!row.is_array() || row.size() != static_cast<size_t>(m.cols))
          throw Error(at_head + "[" + std::to_string(i) + "] should have " +
                      std::to_string(m.cols) + " weights, one per " + cols_are);
        for (size_t j = 0; j < row.size(); ++j)
          m.values.push_back(weight_value(
              row[j], at_head + "[" + std::to_string(i) + "][" + std::to_string(j) + "]"));
      }
    }
  }
}

// One type's matrices of one sentence: `value` is the sentence's entry for type.key.
AttentionMatrices read_type(const json& value, const schema::AttentionType& type,
                            const DumpSentence& s, const Selection& selection,
                            const std::string& where) {
  AttentionMatrices m;
  m.type = type.type;
  m.rows = static_cast<int>(s.tokens(type.rows).size());
  m.cols = static_cast<int>(s.tokens(type.cols).size());
  if (!value.is_array()) throw Error(where + ": " + type.key + " is not a list of layers");
  const int layers = static_cast<int>(value.size());
  if (selection.heads_given) {
    m.heads = selection.heads;
  } else {  // no selection: count the heads of the first layer
    int count = layers > 0 && value[0].is_array() ? static_cast<int>(value[0].size()) : 0;
    for (int h = 0; h < count; ++h) m.heads.push_back(h);
  }
  if (m.rows == 0 || m.cols == 0) {
    // A blank sentence: the writer leaves no layers. Anything else is malformed.
    for (const json& layer : value)
      for (const json& matrix : layer)
        if (!matrix.empty())
          throw Error(where + ": " + type.key + " holds weights but the sentence has no " +
                      (m.rows == 0 ? "queries" : "keys"));
    return m;
  }
  m.layer_labels = layer_labels(type, selection, layers);
  m.model_layers = dump_read::model_layers(type, selection, layers);
  read_matrices(value, where + ": " + type.key, m, axis_token(type.rows), axis_token(type.cols));
  mark_masked(m, selection);
  check_weights(m, type.causal, where + ": " + type.key);
  return m;
}

// A probability's logarithm, or a probability: a finite number in range.
float probability_number(const json& value, bool logarithm, const std::string& where) {
  if (!value.is_number()) throw Error(where + " is not a number");
  const double x = value.get<double>();
  if (!std::isfinite(x) || x > (logarithm ? 1e-3 : 1.001) || (!logarithm && x < 0))
    throw Error(where + " is not a " + (logarithm ? "log-probability" : "probability") + ": " +
                value.dump());
  return static_cast<float>(x);
}

// The optional output_log_probs and alternatives, one entry per output token.
void read_output_probabilities(const json& entry, DumpSentence& s, const std::string& where) {
  const size_t count = s.output_tokens.size();
  auto list = [&](const char* key) -> const json* {
    auto it = entry.find(key);
    if (it == entry.end() || it->is_null()) return nullptr;
    if (!it->is_array() || it->size() != count)
      throw Error(where + ": " + key + " is not a list of one entry per output token");
    return &*it;
  };
  if (auto given = entry.find(schema::kGivenTokens); given != entry.end()) {
    if (!given->is_number_unsigned() || given->get<size_t>() > count)
      throw Error(where + ": " + schema::kGivenTokens + " is not a count of output tokens");
    s.given_tokens = given->get<int>();
  }
  if (const json* values = list(schema::kOutputLogProbs))
    for (size_t i = 0; i < count; ++i)
      s.output_log_probs.push_back(probability_number(
          (*values)[i], true,
          where + ": " + schema::kOutputLogProbs + "[" + std::to_string(i) + "]"));
  if (const json* positions = list(schema::kAlternatives))
    for (size_t i = 0; i < count; ++i) {
      const std::string at = where + ": " + schema::kAlternatives + "[" + std::to_string(i) + "]";
      const json& position = (*positions)[i];
      if (!position.is_array() || position.size() > 1000)
        throw Error(at + " is not a list of at most 1000 alternatives");
      s.alternatives.emplace_back();
      for (const json& alternative : position) {
        if (!alternative.is_object() || !alternative.contains(schema::kToken))
          throw Error(at + " holds something other than {\"token\", \"probability\"} objects");
        s.alternatives.back().emplace_back(
            string_field(alternative, schema::kToken, at),
            probability_number(alternative.value(schema::kProbability, json()), false,
                               at + ": " + schema::kProbability));
      }
    }
}

// An optional rollout: one row per `rows` token, one weight in [0, 1] per `cols` token.
DumpRollout read_rollout(const json& entry, const char* key, size_t rows, size_t cols,
                         const std::string& where) {
  DumpRollout m;
  auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) return m;
  const std::string at = where + ": " + key;
  if (!it->is_array() || it->size() != rows)
    throw Error(at + " should be a list of " + std::to_string(rows) + " rows");
  m.present = true;
  m.rows = static_cast<int>(rows);
  m.cols = static_cast<int>(cols);
  for (size_t i = 0; i < rows; ++i) {
    const json& row = (*it)[i];
    const std::string at_row = at + "[" + std::to_string(i) + "]";
    if (!row.is_array() || row.size() != cols)
      throw Error(at_row + " should have " + std::to_string(cols) +
                  " weights, one per source token");
    for (size_t j = 0; j < cols; ++j)
      m.values.push_back(probability_number(row[j], false, at_row + "[" + std::to_string(j) + "]"));
  }
  return m;
}

DumpSentence read_sentence(const json& entry, int number, const Selection& selection,
                           const std::string& where) {
  if (!entry.is_object()) throw Error(where + " is not an object");
  DumpSentence s;
  s.number = number;
  s.source = string_field(entry, schema::kSource, where);
  s.translation = string_field(entry, schema::kTranslation, where);
  if (entry.contains(schema::kError)) {
    s.error = string_field(entry, schema::kError, where);
    if (s.error.empty()) s.error = "failed";
    return s;
  }
  auto tokens = [&](const char* key) {
    return string_list(entry.value(key, json()), where + ": " + key);
  };
  s.source_tokens = tokens(schema::kSourceTokens);
  s.decoder_input_tokens = tokens(schema::kDecoderInputTokens);
  s.output_tokens = tokens(schema::kOutputTokens);
  if (s.output_tokens.size() != s.decoder_input_tokens.size())
    throw Error(where + ": output_tokens and decoder_input_tokens differ in length");
  read_output_probabilities(entry, s, where);
  for (const schema::AttentionType& type : schema::kAttentionTypes) {
    auto it = entry.find(type.key);
    if (it == entry.end() || it->is_null()) continue;
    s.attention.push_back(read_type(*it, type, s, selection, where));
  }
  const size_t sources = s.source_tokens.size(), steps = s.decoder_input_tokens.size();
  s.encoder_rollout = read_rollout(entry, schema::kEncoderRollout, sources, sources, where);
  s.cross_rollout = read_rollout(entry, schema::kCrossRollout, steps, sources, where);
  read_sentence_extras(entry, selection, s, where);
  return s;
}

// The most bytes of JSON read as a dump: its parsed form takes several times as much memory.
constexpr long long kMaxDumpBytes = 1LL << 30;

Error too_large(const std::string& name) {
  return Error(name +
               ": larger than 1 GiB, the most minimt view reads (dump fewer sentences, "
               "or select with --dump-types, --dump-layers, --dump-heads)");
}

// Bytes from the stream's position to its end; -1 when it cannot seek (a pipe).
long long remaining_bytes(std::istream& in) {
  const std::streampos start = in.tellg();
  if (start < 0) {
    in.clear();
    return -1;
  }
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  in.clear();
  in.seekg(start);
  return end < 0 ? -1 : static_cast<long long>(end - start);
}

// Reads through another stream buffer, throws too_large past kMaxDumpBytes, and notes the first
// NUL byte (nlohmann's parser takes one for the end of the text and would ignore what follows).
class LimitedInput : public std::streambuf {
 public:
  LimitedInput(std::streambuf& source, const std::string& name) : source_(source), name_(name) {}
  long long first_nul() const { return first_nul_; }  // -1: none read

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize n = source_.sgetn(buffer_, sizeof buffer_);
    if (n <= 0) return traits_type::eof();
    if (const void* nul = first_nul_ < 0 ? std::memchr(buffer_, '\0', n) : nullptr)
      first_nul_ = read_ + (static_cast<const char*>(nul) - buffer_);
    read_ += n;
    if (read_ > kMaxDumpBytes) throw too_large(name_);
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::streambuf& source_;
  const std::string& name_;
  long long read_ = 0;
  long long first_nul_ = -1;
  char buffer_[1 << 16];
};

// "NAME: sentence 3: key 'source' appears twice" from the builder's path to the key.
Error duplicate_key(const std::string& name, const std::vector<std::string>& path) {
  // The builder writes a position in an array as "[N]" (a key could look so too: then it is not
  // all digits, or "sentences" was an object and the message names the key as it is).
  const auto position = [](const std::string& step) -> long long {
    if (step.size() < 3 || step.size() > 12 || step.front() != '[' || step.back() != ']') return -1;
    long long n = 0;
    for (size_t i = 1; i + 1 < step.size(); ++i) {
      if (step[i] < '0' || step[i] > '9') return -1;
      n = n * 10 + (step[i] - '0');
    }
    return n;
  };
  if (path.size() > 2 && path[0] == schema::kSentences && position(path[1]) >= 0)
    return Error(name + ": sentence " + std::to_string(position(path[1]) + 1) + ": key '" +
                 json_path_text(path, 2) + "' appears twice");
  return Error(name + ": key '" + json_path_text(path) + "' appears twice");
}

}  // namespace

AttentionDump parse_attention_dump(const json& document, const std::string& name) {
  if (!document.is_object() || document.value(schema::kFormat, json()) != schema::kFormatName)
    throw Error(name + ": not a minimt attention dump (\"format\" should be \"minimt-attention\")");
  json version = document.value(schema::kVersionKey, json());
  if (version != schema::kVersion)
    // Only a number is printed: dumping an arbitrary (perhaps deeply nested) value could recurse
    // without bound.
    throw Error(
        name + ": attention dump version " +
        (version.is_number() ? version.dump() : std::string("of type ") + version.type_name()) +
        " is not supported (this minimt reads version 1)");
  AttentionDump dump;
  dump.model = string_field(document, schema::kModel, name);
  dump.compute_type = string_field(document, schema::kComputeType, name);
  const Selection selection = dump_read::read_selection(document, name, dump);
  dump.notes = string_list(document.value(schema::kNotes, json()), name + ": \"notes\"");
  auto sentences = document.find(schema::kSentences);
  if (sentences == document.end() || !sentences->is_array())
    throw Error(name + ": \"sentences\" is missing or not a list");
  dump.sentences.reserve(sentences->size());  // no copies of the sentences as the list grows
  int number = 0;
  for (const json& entry : *sentences) {
    ++number;
    dump.sentences.push_back(
        read_sentence(entry, number, selection, name + ": sentence " + std::to_string(number)));
  }
  return dump;
}

AttentionDump read_attention_dump(std::istream& in, const std::string& name) {
  const long long size = remaining_bytes(in);
  if (size > kMaxDumpBytes) throw too_large(name);
  LimitedInput limited(*in.rdbuf(), name);  // for a pipe, whose size is only known at its end
  std::istream bounded(&limited);
  // A dump nests 6 levels deep; far deeper input would overflow the stack when copied.
  constexpr int kMaxDepth = 64;
  JsonDomBuilder builder(kMaxDepth);
  json::sax_parse(bounded, &builder);
  switch (builder.problem()) {
    case JsonDomBuilder::Problem::kNone:
      break;
    case JsonDomBuilder::Problem::kSyntax:  // parse_error, or out_of_range for 1e999
      throw Error(name + ": not valid JSON (" + builder.syntax_message() + ")");
    case JsonDomBuilder::Problem::kTooDeep:
      throw Error(name + ": not valid JSON (nested deeper than " + std::to_string(kMaxDepth) +
                  " levels)");
    case JsonDomBuilder::Problem::kDuplicateKey:
      throw duplicate_key(name, builder.path());
  }
  if (limited.first_nul() >= 0)
    throw Error(name + ": not valid JSON (a NUL byte at byte " +
                std::to_string(limited.first_nul()) + "; JSON text has none)");
  return parse_attention_dump(builder.document(), name);
}

}  // namespace minimt
