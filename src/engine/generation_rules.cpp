// transformers' RepetitionPenaltyLogitsProcessor, NoRepeatNGramLogitsProcessor,
// NoBadWordsLogitsProcessor and ForcedEOSTokenLogitsProcessor, in generate()'s order, on the
// decoder input (start token included, as generate()'s input_ids).
#include "minimt/engine/generation_rules.h"

#include <algorithm>
#include <limits>

namespace minimt {
namespace {

constexpr float kBanned = -std::numeric_limits<float>::infinity();

void penalize_repeats(float penalty, const std::vector<int>& history, float* row, int vocab) {
  std::vector<int> seen(history);
  std::sort(seen.begin(), seen.end());
  seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
  for (int token : seen) {
    if (token < 0 || token >= vocab) continue;
    float& score = row[token];
    score = score < 0 ? score * penalty : score / penalty;
  }
}

// Every n-gram of the history whose first n-1 tokens are the history's last n-1 bans its last.
void ban_repeated_ngrams(int n, const std::vector<int>& history, float* row, int vocab) {
  const size_t size = static_cast<size_t>(n);
  if (history.size() + 1 < size) return;
  const size_t tail = history.size() - (size - 1);  // where the last n-1 tokens start
  for (size_t start = 0; start + size <= history.size(); ++start) {
    if (!std::equal(history.begin() + start, history.begin() + start + size - 1,
                    history.begin() + tail))
      continue;
    const int banned = history[start + size - 1];
    if (banned >= 0 && banned < vocab) row[banned] = kBanned;
  }
}

void ban_bad_words(const std::vector<std::vector<int>>& words, const std::vector<int>& history,
                   float* row, int vocab) {
  for (const auto& word : words) {
    const size_t before = word.size() - 1;
    if (word.empty() || before > history.size()) continue;
    if (std::equal(word.begin(), word.end() - 1, history.end() - before) && word.back() < vocab)
      row[word.back()] = kBanned;
  }
}

}  // namespace

void apply_generation_rules(const GenerationRules& rules, const std::vector<int>& history,
                            int max_length, float* row, int vocab_size) {
  if (rules.repetition_penalty != 1.0f)
    penalize_repeats(rules.repetition_penalty, history, row, vocab_size);
  if (rules.no_repeat_ngram_size > 0)
    ban_repeated_ngrams(rules.no_repeat_ngram_size, history, row, vocab_size);
  if (!rules.bad_words.empty()) ban_bad_words(rules.bad_words, history, row, vocab_size);
  // history holds the start token: the next token is output number history.size()
  if (rules.forced_last_token >= 0 && rules.forced_last_token < vocab_size &&
      static_cast<int>(history.size()) == max_length) {
    std::fill(row, row + vocab_size, kBanned);
    row[rules.forced_last_token] = 0.0f;
  }
}

}  // namespace minimt
