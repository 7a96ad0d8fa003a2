#include "minimt/app/record/attention_dump.h"

#include <algorithm>

#include "app/record/dump_extras.h"
#include "minimt/app/analysis/rollout.h"
#include "minimt/app/record/dump_schema.h"
#include "minimt/base/error.h"
#include "minimt/base/from_end.h"
#include "minimt/base/json_writer.h"

namespace minimt {
namespace {

namespace schema = dump_schema;

// "name": (a key of the dump's schema: plain ASCII, nothing to escape).
std::string key(const char* name) {
  return std::string("\"") + name + "\":";
}

std::string join_ints(const std::vector<int>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

// Writes [layer][head][rows][cols] for the chosen layers and heads; value(l, h, i, j).
template <typename Value>
void write_matrices(std::ostream& out, const std::vector<int>& layers,
                    const std::vector<int>& heads, int rows, int cols, Value value) {
  out << '[';
  for (size_t a = 0; a < layers.size(); ++a) {
    out << (a ? ",[" : "[");
    for (size_t b = 0; b < heads.size(); ++b) {
      out << (b ? ",[" : "[");
      for (int i = 0; i < rows; ++i) {
        out << (i ? ",[" : "[");
        for (int j = 0; j < cols; ++j) {
          if (j) out << ',';
          write_json_float(out, value(layers[a], heads[b], i, j));
        }
        out << ']';
      }
      out << ']';
    }
    out << ']';
  }
  out << ']';
}

// Writes [rows][cols].
void write_matrix(std::ostream& out, const RolloutMatrix& m) {
  out << '[';
  for (int i = 0; i < m.rows; ++i) {
    out << (i ? ",[" : "[");
    for (int j = 0; j < m.cols; ++j) {
      if (j) out << ',';
      write_json_float(out, static_cast<float>(m.at(i, j)));
    }
    out << ']';
  }
  out << ']';
}

// What a reader of the matrices must know about a format-2 model whose attention differs from
// the original Transformer's; none for the others, whose dumps stay as they were.
std::vector<std::string> model_notes(const ModelConfig& c) {
  std::vector<std::string> notes;
  if (c.relative_attention.buckets > 0)
    notes.push_back(
        "self-attention weights are softmax(q.k" +
        std::string(c.scale_attention_scores ? " / sqrt(d_k)" : "") +
        " + a learned relative-position bias per head and distance bucket): the bias is part of "
        "the score, and the model has no other position signal (T5)");
  else if (!c.scale_attention_scores)
    notes.push_back("attention scores are q.k, not divided by sqrt(d_k)");
  if (c.forced_first_token >= 0)
    notes.push_back(
        "the first output token is forced (the target language code): its "
        "log-probability is 0 and its alternatives have probability 1 and 0");
  return notes;
}

}  // namespace

void check_dump_selection(const DumpSelection& selection, const ModelConfig& c) {
  for (int head : selection.heads)
    if (head < 0 || head >= c.num_heads)
      throw Error("attention dump: head " + std::to_string(head) +
                  " does not exist (the model has " + std::to_string(c.num_heads) +
                  " heads, numbered from 0)");
  int deepest = std::max(c.encoder_layers, c.decoder_layers);
  for (int layer : selection.layers)
    if (layer >= deepest || layer < -std::min(c.encoder_layers, c.decoder_layers))
      throw Error("attention dump: layer " + std::to_string(layer) + " does not exist (" +
                  std::to_string(c.encoder_layers) + " encoder and " +
                  std::to_string(c.decoder_layers) + " decoder layers)");
}

AttentionDumpWriter::AttentionDumpWriter(std::ostream& out, const Model& model,
                                         DumpSelection selection)
    : out_(out), model_(model), selection_(std::move(selection)) {
  const ModelConfig& c = model.config();
  check_dump_selection(selection_, c);
  if (selection_.heads.empty())
    for (int h = 0; h < c.num_heads; ++h) heads_.push_back(h);
  else
    heads_ = selection_.heads;

  std::string type_list;
  for (const schema::AttentionType& type : schema::kAttentionTypes)
    if (kept(type)) type_list += (type_list.empty() ? "" : ",") + json_string(type.type);
  out_ << '{' << key(schema::kFormat) << json_string(schema::kFormatName) << ','
       << key(schema::kVersionKey) << schema::kVersion << ',' << key(schema::kModel)
       << json_string(model.directory()) << ',' << key(schema::kComputeType)
       << json_string(to_string(model.compute_type())) << ',' << key(schema::kSelection) << '{'
       << key(schema::kTypes) << '[' << type_list << "]," << key(schema::kLayers)
       << (selection_.layers.empty() ? "null" : join_ints(selection_.layers)) << ','
       << key(schema::kHeads) << join_ints(heads_);
  // The layer numbers the selection names in each stack, so that "-1" reads as its number.
  if (!selection_.layers.empty())
    out_ << ',' << key(schema::kEncoderLayers) << join_ints(resolve_layers(c.encoder_layers)) << ','
         << key(schema::kDecoderLayers) << join_ints(resolve_layers(c.decoder_layers)) << ','
         << key(schema::kEncoderDepth) << c.encoder_layers << ',' << key(schema::kDecoderDepth)
         << c.decoder_layers;
  out_ << "},\n";
  if (!selection_.masked_heads.empty())
    out_ << key(schema::kMaskedHeads) << json_string(selection_.masked_heads) << ",\n";
  const std::vector<std::string> notes = model_notes(c);
  if (!notes.empty()) {
    out_ << key(schema::kNotes) << '[';
    for (size_t i = 0; i < notes.size(); ++i) out_ << (i ? "," : "") << json_string(notes[i]);
    out_ << "],\n";
  }
  out_ << key(schema::kSentences) << '[';
}

bool AttentionDumpWriter::kept(const dump_schema::AttentionType& type) const {
  const std::vector<std::string>& types = selection_.types;
  return types.empty() || std::find(types.begin(), types.end(), type.type) != types.end();
}

std::vector<int> AttentionDumpWriter::resolve_layers(int count) const {
  std::vector<int> layers;
  if (selection_.layers.empty())
    for (int l = 0; l < count; ++l) layers.push_back(l);
  for (int layer : selection_.layers) {
    const int index = index_from_end(layer, count);
    if (index >= 0 && index < count) layers.push_back(index);
  }
  return layers;
}

void AttentionDumpWriter::write_tokens(const char* name, const std::vector<std::string>& pieces) {
  out_ << ',' << key(name) << '[';
  for (size_t i = 0; i < pieces.size(); ++i) out_ << (i ? "," : "") << json_string(pieces[i]);
  out_ << ']';
}

// The optional output_log_probs and alternatives of a translated sentence.
void AttentionDumpWriter::write_probabilities(const Translation& t) {
  const Tokenizer& target = model_.target_tokenizer();
  if (t.log_probs.size() == t.output_ids.size()) {
    out_ << ',' << key(schema::kOutputLogProbs) << '[';
    for (size_t i = 0; i < t.log_probs.size(); ++i) {
      if (i) out_ << ',';
      write_json_float(out_, t.log_probs[i]);
    }
    out_ << ']';
  }
  if (!t.alternatives.empty()) {
    out_ << ',' << key(schema::kAlternatives) << '[';
    for (size_t i = 0; i < t.alternatives.size(); ++i) {
      out_ << (i ? ",[" : "[");
      for (size_t k = 0; k < t.alternatives[i].size(); ++k) {
        out_ << (k ? ",{" : "{") << key(schema::kToken)
             << json_string(target.piece(t.alternatives[i][k].id)) << ','
             << key(schema::kProbability);
        write_json_float(out_, t.alternatives[i][k].probability);
        out_ << '}';
      }
      out_ << ']';
    }
    out_ << ']';
  }
}

void AttentionDumpWriter::add(const Translation& t) {
  const ModelConfig& c = model_.config();
  out_ << (first_ ? "\n" : ",\n") << '{' << key(schema::kSource) << json_string(t.source);
  first_ = false;
  if (!t.ok()) {
    out_ << ',' << key(schema::kError) << json_string(t.error) << '}';
    return;
  }
  out_ << ',' << key(schema::kTranslation) << json_string(t.text);
  const Tokenizer& source = model_.source_tokenizer();
  const Tokenizer& target = model_.target_tokenizer();
  std::vector<std::string> source_pieces, input_pieces, output_pieces;
  for (int id : t.source_ids) source_pieces.push_back(source.piece(id));
  for (size_t i = 0; i < t.output_ids.size(); ++i) {
    input_pieces.push_back(target.piece(i == 0 ? c.decoder_start_token : t.output_ids[i - 1]));
    output_pieces.push_back(target.piece(t.output_ids[i]));
  }
  write_tokens(schema::kSourceTokens, source_pieces);
  write_tokens(schema::kDecoderInputTokens, input_pieces);
  write_tokens(schema::kOutputTokens, output_pieces);
  if (t.given_tokens > 0) out_ << ',' << key(schema::kGivenTokens) << t.given_tokens;
  write_probabilities(t);

  const AttentionRecord empty;
  const AttentionRecord& r = t.attention ? *t.attention : empty;
  const int s = static_cast<int>(t.source_ids.size());
  const int steps = r.steps();
  const std::vector<int> encoder_layers = resolve_layers(t.attention ? c.encoder_layers : 0);
  const std::vector<int> decoder_layers = resolve_layers(t.attention ? c.decoder_layers : 0);
  const schema::AttentionType& encoder = *schema::find_attention_type("encoder");
  const schema::AttentionType& decoder = *schema::find_attention_type("decoder");
  const schema::AttentionType& cross = *schema::find_attention_type("cross");
  if (kept(encoder)) {
    out_ << ",\n " << key(encoder.key);
    write_matrices(out_, encoder_layers, heads_, s, s,
                   [&](int l, int h, int i, int j) { return r.encoder(l, h, i, j); });
    write_type_extras(out_, selection_, {encoder, encoder_layers, heads_, s, s}, r);
  }
  if (kept(decoder)) {
    out_ << ",\n " << key(decoder.key);
    write_matrices(out_, decoder_layers, heads_, steps, steps,
                   [&](int l, int h, int i, int j) { return r.decoder_self(l, h, i, j); });
    write_type_extras(out_, selection_, {decoder, decoder_layers, heads_, steps, steps}, r);
  }
  if (kept(cross)) {
    out_ << ",\n " << key(cross.key);
    write_matrices(out_, decoder_layers, heads_, steps, s,
                   [&](int l, int h, int i, int j) { return r.cross(l, h, i, j); });
    write_type_extras(out_, selection_, {cross, decoder_layers, heads_, steps, s}, r);
  }
  if (selection_.rollout) write_rollout(r);
  if (selection_.logit_lens > 0) write_layer_predictions(out_, t, target, decoder_layers);
  out_ << '}';
}

void AttentionDumpWriter::write_rollout(const AttentionRecord& record) {
  const SentenceRollout rollout = sentence_rollout(record);
  out_ << ",\n " << key(schema::kEncoderRollout);
  write_matrix(out_, rollout.encoder);
  out_ << ",\n " << key(schema::kCrossRollout);
  write_matrix(out_, rollout.cross);
}

void AttentionDumpWriter::finish() {
  out_ << "\n]}\n";
}

}  // namespace minimt
