#include "beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/highest_first.h"
#include "minimt/engine/ops.h"
#include "search_start.h"

namespace minimt::search_detail {
namespace {

struct LiveHypothesis {
  int sentence = 0;
  int row = 0;  // its row of the current logits, and its state's index
  Hypothesis hypothesis;
  double sum = 0.0;  // summed log-probability
};

struct Candidate {
  double sum;  // the parent's sum plus this token's log-probability
  int parent;  // index into the live hypotheses
  int token;
  float log_prob;
};

// Best first; ties to the lower parent, then the lower token id.
bool better(const Candidate& a, const Candidate& b) {
  if (a.sum != b.sum) return a.sum > b.sum;
  if (a.parent != b.parent) return a.parent < b.parent;
  return a.token < b.token;
}

// The highest ranking score a live hypothesis of `length` tokens and summed log-probability
// `sum` could still reach: log-probabilities are <= 0, so its sum can only fall, and the
// length penalty divides by the length^A of some length in (length, max_length].
double best_reachable(double sum, int length, int max_length, float length_penalty) {
  if (length_penalty > 0) return sum / std::pow(static_cast<double>(max_length), length_penalty);
  if (length_penalty < 0) return sum / std::pow(static_cast<double>(length + 1), length_penalty);
  return sum;
}

class BeamSearch {
 public:
  BeamSearch(const SearchOptions& options, int vocab_size, size_t sentences)
      : options_(options), vocab_(vocab_size), finished_(sentences) {}

  // Expands the live hypotheses (rows of logits, grouped by sentence) into the next ones and
  // the parents (state indices) they continue.
  void expand(const float* logits, std::vector<LiveHypothesis>& live, std::vector<int>& parents);
  void finish(int sentence, Hypothesis hypothesis) {
    finished_[sentence].push_back(std::move(hypothesis));
  }
  std::vector<std::vector<Hypothesis>> results();

 private:
  // The 2 * beam_size best candidates of the live hypotheses [first, last).
  void candidates(const float* logits, const std::vector<LiveHypothesis>& live, size_t first,
                  size_t last);
  // True when the sentence's finished hypotheses can no longer be beaten.
  bool settled(int sentence, const std::vector<LiveHypothesis>& next, size_t first) const;

  // generate()'s BeamHypotheses.is_done, after the step that made `next`.
  bool transformers_done(int sentence) const;
  // The score finished hypotheses are ranked by.
  double rank(const Hypothesis& hypothesis) const;

  const SearchOptions& options_;
  const int vocab_;
  std::vector<std::vector<Hypothesis>> finished_;
  std::vector<Candidate> candidates_;
  std::vector<int> order_;
  std::vector<float> ruled_;
  std::vector<int> history_;
  int step_length_ = 0;  // the candidates' length, their output tokens
};

double BeamSearch::rank(const Hypothesis& hypothesis) const {
  return ranking_score(hypothesis, options_.length_penalty, options_.beam_rules);
}

bool BeamSearch::transformers_done(int sentence) const {
  const auto& done = finished_[sentence];
  const size_t beam = options_.beam_size;
  if (done.size() < beam) return false;
  if (options_.early_stopping == EarlyStopping::kTrue) return true;
  std::vector<double> scores;
  for (const auto& hypothesis : done) scores.push_back(rank(hypothesis));
  std::nth_element(scores.begin(), scores.begin() + (beam - 1), scores.end(),
                   std::greater<double>());
  const double worst_kept = scores[beam - 1];
  // The best of the step's candidates (eos ones too), at the length the step's input had.
  const double best =
      candidates_.empty() ? -std::numeric_limits<double>::infinity() : candidates_.front().sum;
  const float a = options_.length_penalty;
  double length = step_length_;  // generate()'s cur_len: the start token and the output so far
  if (options_.early_stopping == EarlyStopping::kNever && a > 0) length = options_.max_length + 1;
  return worst_kept >= best / std::pow(length, static_cast<double>(a));
}

void BeamSearch::candidates(const float* logits, const std::vector<LiveHypothesis>& live,
                            size_t first, size_t last) {
  const size_t wanted = 2 * static_cast<size_t>(options_.beam_size);
  candidates_.clear();
  step_length_ = static_cast<int>(live[first].hypothesis.tokens.size()) + 1;
  for (size_t i = first; i < last; ++i) {
    const float* row = logits + static_cast<size_t>(live[i].row) * vocab_;
    float normalizer = ops::log_sum_exp(row, vocab_);
    if (options_.rules.active()) {  // generate(): on the log-probabilities, not renormalized
      ruled_.resize(vocab_);
      for (int j = 0; j < vocab_; ++j) ruled_[j] = row[j] - normalizer;
      history_.assign(1, options_.start_token);
      const auto& tokens = live[i].hypothesis.tokens;
      history_.insert(history_.end(), tokens.begin(), tokens.end());
      apply_generation_rules(options_.rules, history_, options_.max_length, ruled_.data(), vocab_);
      row = ruled_.data();
      normalizer = 0.0f;
    }
    // Only a row's own best `wanted` tokens can be among the sentence's best `wanted`.
    const size_t take = std::min(wanted, static_cast<size_t>(vocab_));
    order_highest_first(row, vocab_, static_cast<int>(take), order_);
    for (size_t r = 0; r < take; ++r) {
      const int token = order_[r];
      const float log_prob = row[token] - normalizer;
      candidates_.push_back({live[i].sum + log_prob, static_cast<int>(i), token, log_prob});
    }
  }
  const size_t keep = std::min(wanted, candidates_.size());
  std::partial_sort(candidates_.begin(), candidates_.begin() + keep, candidates_.end(), better);
  candidates_.resize(keep);
}

bool BeamSearch::settled(int sentence, const std::vector<LiveHypothesis>& next,
                         size_t first) const {
  const auto& done = finished_[sentence];
  const size_t beam = options_.beam_size;
  if (done.size() < beam) return false;
  std::vector<double> scores;
  for (const auto& hypothesis : done)
    scores.push_back(ranking_score(hypothesis, options_.length_penalty));
  std::nth_element(scores.begin(), scores.begin() + (beam - 1), scores.end(),
                   std::greater<double>());
  const double worst_kept = scores[beam - 1];
  double best_live = -std::numeric_limits<double>::infinity();
  for (size_t i = first; i < next.size(); ++i) best_live = std::max(best_live, next[i].sum);
  if (first == next.size()) return true;
  const int length = static_cast<int>(next[first].hypothesis.tokens.size());
  return best_reachable(best_live, length, options_.max_length, options_.length_penalty) <=
         worst_kept;
}

void BeamSearch::expand(const float* logits, std::vector<LiveHypothesis>& live,
                        std::vector<int>& parents) {
  std::vector<LiveHypothesis> next;
  parents.clear();
  for (size_t first = 0; first < live.size();) {
    const int sentence = live[first].sentence;
    size_t last = first;
    while (last < live.size() && live[last].sentence == sentence) ++last;
    candidates(logits, live, first, last);
    const size_t next_first = next.size();
    int kept = 0;
    for (size_t rank = 0; rank < candidates_.size() && kept < options_.beam_size; ++rank) {
      const Candidate& c = candidates_[rank];
      const LiveHypothesis& parent = live[c.parent];
      // An eos among the first beam_size candidates finishes a hypothesis; a later one would
      // rank below beam_size live ones and is dropped.
      if (c.token == options_.eos && rank >= static_cast<size_t>(options_.beam_size)) continue;
      Hypothesis extended = parent.hypothesis;
      extended.tokens.push_back(c.token);
      extended.log_probs.push_back(c.log_prob);
      if (c.token == options_.eos) {
        extended.finished = true;
        finish(sentence, std::move(extended));
        continue;
      }
      ++kept;
      next.push_back({sentence, parent.row, std::move(extended), c.sum});
    }
    // At the maximum length the live hypotheses end as they are (cut, without eos).
    const bool at_limit =
        next.size() > next_first &&
        static_cast<int>(next.back().hypothesis.tokens.size()) >= options_.max_length;
    if (options_.beam_rules == BeamRules::kTransformers) {
      // generate(): the sentence stops when is_done; at the limit, what is live is added
      if (transformers_done(sentence)) {
        next.resize(next_first);
      } else if (at_limit) {
        for (size_t i = next_first; i < next.size(); ++i) finish(sentence, next[i].hypothesis);
        next.resize(next_first);
      }
    } else if (at_limit) {
      for (size_t i = next_first; i < next.size(); ++i) finish(sentence, next[i].hypothesis);
      next.resize(next_first);
    } else if (settled(sentence, next, next_first)) {
      next.resize(next_first);
    }
    first = last;
  }
  for (size_t i = 0; i < next.size(); ++i) {
    parents.push_back(next[i].row);
    next[i].row = static_cast<int>(i);
  }
  live.swap(next);
}

std::vector<std::vector<Hypothesis>> BeamSearch::results() {
  std::vector<std::vector<Hypothesis>> results(finished_.size());
  for (size_t s = 0; s < finished_.size(); ++s) {
    auto& done = finished_[s];
    // Stable: equal scores keep the order in which they finished.
    std::stable_sort(done.begin(), done.end(), [this](const Hypothesis& a, const Hypothesis& b) {
      return rank(a) > rank(b);
    });
    if (done.size() > static_cast<size_t>(options_.n_best)) done.resize(options_.n_best);
    results[s] = std::move(done);
  }
  return results;
}

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(Decoder& decoder,
                                                 std::vector<DecoderState>& states,
                                                 const std::vector<SearchRequest>& requests,
                                                 const SearchOptions& options, int vocab_size) {
  SearchStart start = start_search(decoder, states, requests, options, vocab_size);
  BeamSearch beams(options, vocab_size, states.size());
  std::vector<LiveHypothesis> live;
  size_t open = 0;
  for (size_t b = 0; b < states.size(); ++b) {
    const bool generating = open < start.open.size() && start.open[open] == static_cast<int>(b);
    if (generating) {
      ++open;
      double sum = 0.0;
      for (float log_prob : start.forced[b].log_probs) sum += log_prob;
      live.push_back({static_cast<int>(b), static_cast<int>(b), std::move(start.forced[b]), sum});
    } else {
      beams.finish(static_cast<int>(b), std::move(start.forced[b]));  // the prefix filled it
    }
  }
  std::vector<int> parents, tokens;
  std::vector<DecoderState*> pointers;
  const float* logits = start.logits.data();  // [B, V]: row b for state b
  while (!live.empty()) {
    beams.expand(logits, live, parents);
    if (live.empty()) break;
    decoder.reorder(states, parents);  // states[i] now continues live[i]
    tokens.clear();
    pointers.clear();
    for (size_t i = 0; i < live.size(); ++i) {
      tokens.push_back(live[i].hypothesis.tokens.back());
      pointers.push_back(&states[i]);
    }
    logits = decoder.step(tokens, pointers).data();  // [live, V]
  }
  return beams.results();
}

}  // namespace minimt::search_detail
