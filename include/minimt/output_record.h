// The output records of `minimt translate`: one per input line, in text or JSON Lines form.
#pragma once

#include <string>

#include "minimt/model.h"
#include "minimt/translator.h"

namespace minimt {

enum class OutputFormat { kText, kJsonLines };

// The translation and '\n' ("\n" alone for a failed line). A '\n' or '\r' inside the
// translation becomes a space, so that every record is exactly one line.
std::string text_record(const Translation& translation);

// One JSON object and '\n':
//   {"line":N,"source":S,"translation":T,"tokens":[pieces],"score":F,"time_ms":F}
// tokens are the target pieces generated, without the final eos; score is Translation::score
// (the sum of the log-probabilities of every generated token, eos included). A cut source adds
// "truncated":true. A failed line has "error" instead of translation, tokens and score.
// Invalid UTF-8 in the source is written as U+FFFD.
std::string jsonl_record(const Model& model, const Translation& translation, long long line,
                         double time_ms);

}  // namespace minimt
