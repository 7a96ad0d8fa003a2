#include "minimt/app/record/dump_recorder.h"

#include <algorithm>

#include "app/record/dump_keys.h"
#include "app/record/sentence_keys.h"
#include "minimt/base/error.h"
#include "minimt/base/from_end.h"

namespace minimt {
namespace {

namespace schema = dump_schema;

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

DumpRecorder::DumpRecorder(const Model& model, DumpSelection selection)
    : model_(model), selection_(std::move(selection)) {
  const ModelConfig& c = model.config();
  check_dump_selection(selection_, c);
  header_.model = model.directory();
  header_.compute_type = to_string(model.compute_type());
  header_.masked_heads = selection_.masked_heads;
  header_.notes = model_notes(c);
  if (selection_.attributions) header_.attribution_compute_type = schema::kAttributionPrecision;
  const std::vector<std::string>& types = selection_.types;
  for (const schema::AttentionType& type : schema::kAttentionTypes)
    if (types.empty() || std::find(types.begin(), types.end(), type.type) != types.end())
      header_.types.push_back(type.type);
  DumpKept& kept = header_.kept;
  if (selection_.heads.empty())
    for (int h = 0; h < c.num_heads; ++h) kept.heads.push_back(h);
  else
    kept.heads = selection_.heads;
  kept.all_layers = selection_.layers.empty();
  if (!kept.all_layers) {
    kept.layers = selection_.layers;
    kept.encoder_layers = resolve_layers(c.encoder_layers);
    kept.decoder_layers = resolve_layers(c.decoder_layers);
    kept.encoder_depth = c.encoder_layers;
    kept.decoder_depth = c.decoder_layers;
  }
  kept_ = std::make_unique<const dump_read::Selection>(dump_read::kept_selection(header_));
}

DumpRecorder::~DumpRecorder() = default;

std::vector<int> DumpRecorder::resolve_layers(int count) const {
  std::vector<int> layers;
  if (selection_.layers.empty())
    for (int l = 0; l < count; ++l) layers.push_back(l);
  for (int layer : selection_.layers) {
    const int index = index_from_end(layer, count);
    if (index >= 0 && index < count) layers.push_back(index);
  }
  return layers;
}

DumpSentence DumpRecorder::record(const Translation& t, int number) const {
  DumpSentence s;
  s.number = number;
  s.source = dump_keys::json_text(t.source);
  if (!t.ok()) {
    s.error = dump_keys::json_text(t.error);
    return s;
  }
  s.translation = dump_keys::json_text(t.text);
  const ModelConfig& c = model_.config();
  const AttentionRecord empty;
  dump_keys::Recording recording{t,
                                 model_,
                                 selection_,
                                 *kept_,
                                 t.attention ? *t.attention : empty,
                                 resolve_layers(t.attention ? c.encoder_layers : 0),
                                 resolve_layers(t.attention ? c.decoder_layers : 0)};
  dump_keys::record_keys(recording, s);
  return s;
}

}  // namespace minimt
