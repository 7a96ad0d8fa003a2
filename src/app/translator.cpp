#include "minimt/app/translator.h"

#include <algorithm>

#include "minimt/base/error.h"
#include "minimt/base/text_input.h"
#include "minimt/base/utf8.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/search.h"

namespace minimt {
std::vector<int> Translator::source_ids(const std::string& text, bool* truncated) const {
  std::string kept = text.substr(0, utf8_prefix_length(text, kMaxLineBytes));
  bool cut = kept.size() < text.size();
  std::vector<int> ids = normalized_ids(normalize_input(kept), &cut);
  if (truncated) *truncated = cut;
  return ids;
}

std::vector<int> Translator::normalized_ids(const std::string& text, bool* truncated) const {
  const ModelConfig& c = model_->config();
  std::vector<int> ids = model_->source_tokenizer().encode(text);
  // Keep the final eos: the model always saw terminated sentences in training.
  if (static_cast<int>(ids.size()) + 1 > c.max_positions) {
    ids.resize(c.max_positions - 1);
    *truncated = true;
  }
  ids.push_back(c.special.eos);
  return ids;
}

int Translator::effective_max_length(int requested) const {
  // The decoder reads the start token at position 0 and generated token i at position i + 1,
  // so max_positions inputs allow max_positions generated tokens.
  return std::max(0, std::min(requested, model_->config().max_positions));
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences,
                                               const TranslateOptions& options) const {
  const ModelConfig& c = model_->config();
  std::vector<Translation> results(sentences.size());
  std::vector<int> to_run;  // indices of sentences that go through the model
  std::vector<std::vector<int>> sources;
  std::vector<AttentionRecord*> records;
  for (size_t i = 0; i < sentences.size(); ++i) {
    Translation& result = results[i];
    // Cut before anything else reads it: a 10 MB line costs what a 64 KiB one does.
    result.source = sentences[i].substr(0, utf8_prefix_length(sentences[i], kMaxLineBytes));
    result.truncated = result.source.size() < sentences[i].size();
    long long bad = find_invalid_utf8(result.source);
    if (bad >= 0) {
      result.error = "invalid UTF-8 at byte " + std::to_string(bad);
      continue;
    }
    if (is_blank_input(result.source)) continue;
    try {
      result.source_ids = normalized_ids(normalize_input(result.source), &result.truncated);
    } catch (const InputError& e) {
      result.error = e.what();
      continue;
    }
    if (options.record_attention) {
      result.attention = std::make_shared<AttentionRecord>();
      result.attention->encoder_layers = c.encoder_layers;
      result.attention->decoder_layers = c.decoder_layers;
      result.attention->heads = c.num_heads;
      result.attention->source_length = static_cast<int>(result.source_ids.size());
    }
    to_run.push_back(static_cast<int>(i));
    sources.push_back(result.source_ids);
    records.push_back(result.attention.get());
  }
  if (to_run.empty()) return results;

  Encoder encoder(c, model_->weights());
  Decoder decoder(c, model_->weights());
  EncodedBatch encoded = encoder.forward(sources, records);  // the encoder runs once
  std::vector<DecoderState> states = decoder.start(encoded, records);
  SearchOptions search{c.decoder_start_token, c.special.eos,
                       effective_max_length(options.max_length)};
  std::vector<Hypothesis> hypotheses = greedy_search(decoder, states, search, c.target_vocab_size);

  for (size_t k = 0; k < to_run.size(); ++k) {
    Translation& result = results[to_run[k]];
    Hypothesis& hypothesis = hypotheses[k];
    result.output_ids = hypothesis.tokens;
    result.log_probs = hypothesis.log_probs;
    result.score = hypothesis.score();
    std::vector<int> text_ids = hypothesis.tokens;
    if (!text_ids.empty() && text_ids.back() == c.special.eos) text_ids.pop_back();
    result.text = model_->target_tokenizer().decode(text_ids);
  }
  return results;
}

}  // namespace minimt
