// Search: greedy, sampling and beam search over the decoder, which it sees only through
// Decoder::run (the forced start) and Decoder::step / reorder (one token a step).
#pragma once

#include <cstdint>
#include <vector>

#include "minimt/engine/decoder.h"
#include "minimt/engine/generation_rules.h"

namespace minimt {

struct Hypothesis {
  std::vector<int> tokens;       // output ids: a forced prefix, then the generated ones (eos too)
  std::vector<float> log_probs;  // the model's log-probability of each token (natural log)
  bool finished = false;         // ended with eos (false: stopped at the maximum length)
  float score() const;           // sum of log_probs
};

struct SamplingOptions {
  bool enabled = false;
  float temperature = 1.0f;  // > 0: the logits are divided by it
  int top_k = 0;             // keep the k most likely tokens; 0: all
  float top_p = 1.0f;        // then the fewest most likely whose probability reaches top_p
};

// Whose beam search (docs/search.md): minimt's own, or generate()'s where they differ (a cut
// hypothesis's length counts the start token, when a sentence stops: early_stopping).
enum class BeamRules { kMinimt, kTransformers };

// The score hypotheses are ranked by: score / length^length_penalty, the length counting eos.
// Under generate()'s rules the length is that of the decoder input the hypothesis ended with: an
// eos-ended one counts as minimt's, one cut at the limit one more (the start token).
double ranking_score(const Hypothesis& hypothesis, float length_penalty,
                     BeamRules rules = BeamRules::kMinimt);
// generate()'s early_stopping: stop at beam_size finished hypotheses (kTrue), when the best
// candidate's score at the current length cannot beat them (kFalse), or when no length could
// (kNever).
enum class EarlyStopping { kFalse, kTrue, kNever };

struct SearchOptions {
  int start_token = 0;
  int eos = 0;
  int max_length = 256;  // output tokens, prefix and eos included
  int beam_size = 1;     // 1: greedy (or sampling)
  int n_best = 1;        // hypotheses returned per sentence, <= beam_size
  float length_penalty = 0.0f;
  SamplingOptions sampling;
  GenerationRules rules;  // applied at every step (generation_rules.h)
  BeamRules beam_rules = BeamRules::kMinimt;
  EarlyStopping early_stopping = EarlyStopping::kFalse;  // with BeamRules::kTransformers
};

// What one sentence asks of the search besides the options.
struct SearchRequest {
  std::vector<int> prefix;  // forced first output tokens (cut to max_length)
  uint64_t seed = 0;        // the sentence's own random generator, when sampling
};

// Decodes every state (fresh from Decoder::start) and returns, per state, its hypotheses best
// first: one for greedy search and sampling, n_best for a beam search. requests may be empty
// (no prefix, seed 0) or hold one entry per state. The states are used up.
std::vector<std::vector<Hypothesis>> search(Decoder& decoder, std::vector<DecoderState>& states,
                                            const std::vector<SearchRequest>& requests,
                                            const SearchOptions& options, int vocab_size);

// Arg-max at every step (lowest id on a tie) until eos or max_length: search() with beam size 1.
std::vector<Hypothesis> greedy_search(Decoder& decoder, std::vector<DecoderState>& states,
                                      const SearchOptions& options, int vocab_size);

}  // namespace minimt
