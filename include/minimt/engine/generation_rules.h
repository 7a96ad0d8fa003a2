// What a checkpoint's generate() settings ask of every step besides the model's scores
// (transformers' logits processors): a repetition penalty, no repeated n-grams, banned token
// sequences, eos forced at the length limit. greedy search and sampling apply them to the
// logits, beam search to the log-probabilities (as generate() does: not renormalized after).
#pragma once

#include <vector>

namespace minimt {

struct GenerationRules {
  float repetition_penalty = 1.0f;  // > 0; a seen token's score: * it if negative, / it if not
  int no_repeat_ngram_size = 0;     // > 0: no n-gram of this size twice in start + output
  std::vector<std::vector<int>> bad_words;  // a sequence's last token never completes it
  int forced_last_token = -1;               // >= 0: the token at the length limit (eos)
  bool active() const {
    return repetition_penalty != 1.0f || no_repeat_ngram_size > 0 || !bad_words.empty() ||
           forced_last_token >= 0;
  }
};

// Applies the rules to one row of scores for the next token. history: the decoder's input so
// far (the start token, then every output token); max_length: output tokens allowed, eos
// included (the forced last token goes where the output reaches it).
void apply_generation_rules(const GenerationRules& rules, const std::vector<int>& history,
                            int max_length, float* row, int vocab_size);

}  // namespace minimt
