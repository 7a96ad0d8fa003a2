// What each attention head does: its importance (the change in the reference's log-probability
// when it alone is masked, by teacher forcing) and statistics of its pattern on the unmasked
// run. The analysis behind `minimt heads` (docs/analysis.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "minimt/app/translate/translator.h"
#include "minimt/engine/head_mask.h"

namespace minimt {

struct SentencePair {
  std::string source, reference;
  long long line = 0;  // the input line it came from (1-based), for messages
};

// Row statistics of one head's attention, means over every row of every sentence that has two
// keys or more: a row with one key (decoder position 0, which the causal mask lets see only
// itself; every row of a one-piece source) puts weight 1 on it whatever the head does, so it
// says nothing about the head and is left out of every statistic.
struct PatternStats {
  double entropy = 0;                    // -sum p log p, nats
  double max_weight = 0;                 // the largest weight of the row
  std::optional<double> same, previous;  // weight on key i and i-1 for query i (self-attention)
  double first = 0;                      // weight on the first key
  std::optional<double> eos;             // on the source's final eos (encoder and cross)
  std::optional<double> alignment_agreement;  // cross: arg-max equals the head average's
  // cross, with an attribution: the arg-max is the source token of the largest |attribution|
  std::optional<double> attribution_agreement;
  long long rows = 0, previous_rows = 0;
};

// A sentence whose greedy translation changes when a head is masked.
struct ChangedTranslation {
  long long line = 0;         // its input line
  std::string before, after;  // unmasked, masked
};

struct HeadResult {
  AttentionKind kind;
  int layer = 0, head = 0;
  double delta_log_prob = 0;                // masked minus unmasked, per reference token
  std::optional<double> delta_exact_match;  // with translate: masked minus unmasked greedy
  PatternStats pattern;
  std::vector<ChangedTranslation> changed;  // with translate, in input order
};

struct PrunePoint {
  int removed = 0;   // heads masked so far, least important first
  std::string head;  // the head removed at this point ("" for the start)
  double log_prob_per_token = 0;
  std::optional<double> exact_match;
};

struct HeadAnalysisOptions {
  bool translate = false;    // also the change in greedy exact match (one decode per head)
  bool prune_order = false;  // the pruning curve
  int batch_size = 32;
  int threads = 1;
  std::function<void(const std::string&)> progress;  // called before each pass
  // A pair the model cannot score (a reference longer than max_positions): left out.
  std::function<void(const SentencePair&, const std::string& error)> bad_pair;
  // A pair whose source was cut to max_positions: analysed as cut, as translate does.
  std::function<void(const SentencePair&)> source_cut;
  // Set: each cross head's attribution_agreement with this method (ig_steps and ig_rule for
  // integrated gradients), teacher-forced on the references as the intact pass reads them.
  std::optional<AttributionMethod> attribution;
  int ig_steps = 32;
  IgRule ig_rule = IgRule::kGaussLegendre;
};

struct HeadAnalysis {
  int sentences = 0;                  // the pairs analysed (bad ones left out)
  long long tokens = 0;               // reference tokens, eos included
  double log_prob_per_token = 0;      // unmasked
  std::optional<double> exact_match;  // unmasked greedy output equals the reference
  std::vector<HeadResult> heads;      // most important first (most negative delta_log_prob)
  // With an attribution: its method, and the agreement of the mean of each decoder layer's
  // cross heads ([layer]) and of every cross head of every layer ("all") with it, over the
  // rows attribution_agreement counts.
  std::optional<AttributionMethod> attribution;
  int ig_steps = 0;  // integrated gradients': its steps and rule
  IgRule ig_rule = IgRule::kGaussLegendre;
  std::vector<double> layer_attribution_agreement;
  double all_layers_attribution_agreement = 0;
  std::vector<PrunePoint> prune;
};

// Throws InputError when no pair can be scored.
HeadAnalysis analyse_heads(const Translator& translator, const std::vector<SentencePair>& pairs,
                           const HeadAnalysisOptions& options);

// The statistics of one head's rows (exposed for tests): rows[i] is query i's weights over
// the keys (a row of one key is left out); self_attention gives same/previous; eos_key (>= 0) the
// key holding the eos; average_rows (cross) the head average of its layer, for the arg-max
// agreement; attribution_rows (cross) each row's |attribution| over the same keys.
void add_pattern_rows(PatternStats& stats, const std::vector<std::vector<float>>& rows,
                      bool self_attention, int eos_key,
                      const std::vector<std::vector<float>>* average_rows,
                      const std::vector<std::vector<float>>* attribution_rows = nullptr);
void finish_pattern(PatternStats& stats);  // sums to means

}  // namespace minimt
