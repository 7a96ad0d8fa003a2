// Translator: wires tokenizers, encoder, decoder and search together for a batch, and scores
// given translations by teacher forcing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/engine/attribution.h"
#include "minimt/engine/head_mask.h"
#include "minimt/engine/search.h"
#include "minimt/engine/teacher_forcing.h"
#include "minimt/model/model.h"

namespace minimt {

// What a line holds: a source; a source, a tab and the start the translation must have; or a
// source, a tab and a translation to score.
enum class LineColumns { kSource, kSourceAndPrefix, kSourceAndTarget };

// What to attribute (engine/attribution.h): no method, nothing.
struct AttributionOptions {
  std::vector<AttributionMethod> methods;
  int ig_steps = 32;
  IgRule ig_rule = IgRule::kGaussLegendre;
  bool operator==(const AttributionOptions& o) const {
    return methods == o.methods && ig_steps == o.ig_steps && ig_rule == o.ig_rule;
  }
};

struct TranslateOptions {
  int max_length = 256;           // output tokens incl. eos; capped at max_positions
  bool record_attention = false;  // fill Translation::attention (the best hypothesis)
  int beam_size = 1;              // 1: greedy, or sampling
  int n_best = 1;                 // hypotheses kept in Translation::n_best when above 1
  bool keep_n_best = false;       // fill Translation::n_best even for one hypothesis
  bool record_n_best = false;     // with record_attention: every n-best entry gets its own
  int record_cross_only = -1;     // >= 0: records keep only this decoder layer's cross attention
  RecordExtras record_extras;     // with record_attention: what the record keeps besides weights
  int logit_lens = 0;             // > 0 (with record_extras.layer_states): Translation's
                                  // layer_predictions keep this many tokens per layer and position
  float length_penalty = 0.0f;    // ranking: score / length^length_penalty
  int no_repeat_ngram_size = 0;   // > 0: no n-gram of this size twice (generation_rules.h)
  float repetition_penalty = 1.0f;
  // A task of the model's generation block (T5): its source prefix and early stopping; "": none.
  std::string task;
  SamplingOptions sampling;
  uint64_t seed = 0;   // with sampling: line L draws from line_seed(seed, L)
  std::string prefix;  // forced start of every translation (a line's own wins)
  LineColumns columns = LineColumns::kSource;
  int alternatives = 0;      // most likely tokens kept at each output position
  long long first_line = 1;  // the line number of sentences[0] (seeds the samplers)
  std::shared_ptr<const HeadMask> head_mask;  // heads switched off (--mask-heads); null: none
  // Each translated or scored sentence's attributions, teacher-forced on its output (the best
  // hypothesis), with head_mask's heads ablated; a blank line and a failed one have none.
  AttributionOptions attribution;
};

struct Translation {
  std::string source;                // the input text (cut to kMaxLineBytes if it was longer)
  std::string prefix;                // the forced start asked for, as text
  std::string target;                // kSourceAndTarget: the translation that was scored
  std::string text;                  // the translation (the target when scoring)
  std::vector<int> source_ids;       // what the encoder read, incl. the final eos
  std::vector<int> output_ids;       // the translation's ids, incl. eos if it ended with one
  std::vector<float> log_probs;      // one per output id
  float score = 0.0f;                // sum of log_probs
  double ranking_score = 0.0;        // score / length^length_penalty, what beams are ranked by
  bool finished = true;              // the output ended with eos (false: cut at the length limit)
  bool truncated = false;            // the source was cut (to kMaxLineBytes or max_positions)
  std::vector<std::string> unknown;  // words of the source with a part read as <unk>: distinct,
                                     // as typed, the first 100
  std::vector<std::string> target_unknown;  // the same for the target that is scored
  // How many output ids, from the first, were given rather than chosen by the model: all of a
  // scored target (teacher forcing), else the forced start (a prefix, a forced first token).
  int given_tokens = 0;
  std::vector<std::vector<TokenProbability>> alternatives;  // per output id, with alternatives
  // With logit_lens: [decoder layer][output position], the most likely tokens there.
  std::vector<std::vector<std::vector<TokenProbability>>> layer_predictions;
  std::vector<Translation> n_best;  // with n_best > 1 (or keep_n_best): best first, [0] = this
  std::string error;                // not empty: this sentence could not be translated
  std::shared_ptr<AttentionRecord> attention;  // when recorded
  // With TranslateOptions::attribution: [T][S] and [T][T] maps, T = output_ids.size(), and
  // the options they were made with.
  std::shared_ptr<const AttributionResult> attributions;
  AttributionOptions attribution;
  bool ok() const { return error.empty(); }
};

class Translator {
 public:
  explicit Translator(std::shared_ptr<const Model> model) : model_(std::move(model)) {}

  // Translates (or, with LineColumns::kSourceAndTarget, scores) a batch; one Translation per
  // sentence, in order. Each sentence is read as text_input.h says: cut to kMaxLineBytes
  // first, then checked, normalized and tokenized. A sentence that fails (invalid UTF-8, a
  // missing column, a target too long) gets its error and the others are still done. A blank
  // source is not searched: it translates to "", an output of eos alone that the model scores
  // as score would (its log-probability, attention and alternatives). The output of a sentence
  // does not depend on the others in the batch. Thread-safe: concurrent calls share the model.
  std::vector<Translation> translate(const std::vector<std::string>& sentences,
                                     const TranslateOptions& options = {}) const;

  // Source ids for text: the pieces of its first kMaxLineBytes bytes normalized
  // (normalize_input), cut so that with the final eos they fit max_positions.
  std::vector<int> source_ids(const std::string& text, bool* truncated = nullptr) const;

  int effective_max_length(int requested) const;
  const Model& model() const { return *model_; }

 private:
  struct Job;  // one sentence that goes through the model
  // The ids of normalized text, cut to max_positions with the eos; sets *truncated if cut.
  std::vector<int> normalized_ids(const std::string& text, bool* truncated,
                                  const std::string& task = "") const;
  // The search's rules and beam settings the model's generation block adds to the options.
  SearchOptions search_options(const TranslateOptions& options) const;
  // Reads sentence i into result (and job, when the model has to run); false if it need not.
  bool prepare(const std::string& sentence, const TranslateOptions& options, Translation& result,
               Job& job) const;
  void run(std::vector<Job>& jobs, std::vector<Translation>& results,
           const TranslateOptions& options) const;
  void fill(Translation& result, const Hypothesis& hypothesis,
            const TranslateOptions& options) const;
  // Sets result.attributions as options.attribution asks (an output of no token has none).
  void attribute(Translation& result, const TranslateOptions& options) const;

  std::shared_ptr<const Model> model_;
};

}  // namespace minimt
