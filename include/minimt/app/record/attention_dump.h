// Writes attention dumps: one JSON document, {"format": "minimt-attention", "version": 1, ...},
// one entry in "sentences" per translated sentence. Streams: memory holds one sentence at a time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/record/dump_schema.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

namespace minimt {

// Which parts of the attention to keep. Empty types, layers or heads mean all of them; a
// negative layer counts from the end (-1 is the last layer of each stack).
struct DumpSelection {
  std::vector<std::string> types;  // dump_schema.h's type names ("encoder", "cross", ...)
  std::vector<int> layers, heads;
  std::string masked_heads;  // --mask-heads as "cross:2:1,...": written as "masked_heads"
  bool rollout = false;      // --rollout: each sentence's encoder_rollout and cross_rollout
  bool scores = false;       // --dump-scores: <type>_scores beside each type's weights
  bool vectors = false;      // --dump-vectors: <type>_queries, _keys, _values
  bool norms = false;        // --dump-norms: <type>_weighted_norms, _head_norms
  int logit_lens = 0;        // --logit-lens K: decoder_layer_predictions (K tokens each)
};

// Throws Error naming a layer or head the selection asks for and the model does not have.
void check_dump_selection(const DumpSelection& selection, const ModelConfig& config);

class AttentionDumpWriter {
 public:
  // Checks the selection against the model (check_dump_selection) and writes the document's
  // opening.
  AttentionDumpWriter(std::ostream& out, const Model& model, DumpSelection selection = {});
  void add(const Translation& translation);  // needs translation.attention unless it failed
  void finish();                             // closes the document; called once

 private:
  std::vector<int> resolve_layers(int count) const;
  bool kept(const dump_schema::AttentionType& type) const;  // in the selection?
  void write_tokens(const char* name, const std::vector<std::string>& pieces);
  void write_probabilities(const Translation& translation);
  void write_rollout(const AttentionRecord& record);

  std::ostream& out_;
  const Model& model_;
  DumpSelection selection_;
  std::vector<int> heads_;
  bool first_ = true;
};

}  // namespace minimt
