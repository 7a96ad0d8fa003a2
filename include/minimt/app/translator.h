// Translator: wires tokenizers, encoder, decoder and greedy search together for a batch.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/model/model.h"

namespace minimt {

struct TranslateOptions {
  int max_length = 256;           // generated tokens incl. eos; capped at max_positions
  bool record_attention = false;  // fill Translation::attention
};

struct Translation {
  std::string source;            // the input text (cut to kMaxLineBytes if it was longer)
  std::string text;              // the translation
  std::vector<int> source_ids;   // what the encoder read, incl. the final eos
  std::vector<int> output_ids;   // what the decoder produced, incl. eos if it was produced
  std::vector<float> log_probs;  // one per output id
  float score = 0.0f;            // sum of log_probs
  bool truncated = false;        // the source was cut (to kMaxLineBytes or max_positions)
  std::string error;             // not empty: this sentence could not be translated
  std::shared_ptr<AttentionRecord> attention;  // when recorded
  bool ok() const { return error.empty(); }
};

class Translator {
 public:
  explicit Translator(std::shared_ptr<const Model> model) : model_(std::move(model)) {}

  // Translates a batch; one Translation per sentence, in order. Each sentence is read as
  // text_input.h says: cut to kMaxLineBytes first, then checked, normalized and tokenized. A
  // sentence that fails (invalid UTF-8) gets its error and the others are still translated. A
  // blank sentence (is_blank_input: empty, or only white space, control and invisible format
  // characters) translates to "" without running the model. Thread-safe: concurrent calls
  // share the model.
  std::vector<Translation> translate(const std::vector<std::string>& sentences,
                                     const TranslateOptions& options = {}) const;

  // Source ids for text: the pieces of its first kMaxLineBytes bytes normalized
  // (normalize_input), cut so that with the final eos they fit max_positions.
  std::vector<int> source_ids(const std::string& text, bool* truncated = nullptr) const;

  int effective_max_length(int requested) const;
  const Model& model() const { return *model_; }

 private:
  // The ids of normalized text, cut to max_positions with the eos; sets *truncated if cut.
  std::vector<int> normalized_ids(const std::string& text, bool* truncated) const;

  std::shared_ptr<const Model> model_;
};

}  // namespace minimt
