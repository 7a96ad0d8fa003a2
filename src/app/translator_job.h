// One sentence of a Translator::translate batch that goes through the model.
#pragma once

#include <memory>
#include <vector>

#include "minimt/app/translator.h"

namespace minimt {

struct Translator::Job {
  size_t index = 0;             // into the results
  std::vector<int> prefix_ids;  // forced start of the output
  std::vector<int> target_ids;  // kSourceAndTarget: the output to score, eos included
};

// A record for a sentence of source_length pieces, filled by the passes that run it.
// cross_only_layer >= 0: it keeps only that decoder layer's cross attention.
inline std::shared_ptr<AttentionRecord> empty_record(const ModelConfig& c, int source_length,
                                                     int cross_only_layer) {
  auto record = std::make_shared<AttentionRecord>();
  record->cross_only_layer = cross_only_layer;
  record->encoder_layers = c.encoder_layers;
  record->decoder_layers = c.decoder_layers;
  record->heads = c.num_heads;
  record->source_length = source_length;
  return record;
}

}  // namespace minimt
