// The output records of `minimt translate` and `minimt score`, one per input line: built as
// data from the translation, then written out once, in text or JSON Lines form.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

namespace minimt {

struct OutputRecord {
  long long line = 0;                       // the input line's number, from 1
  std::string source;                       // the input line (its source column)
  std::string target;                       // score: the translation that was scored
  std::string error;                        // not empty: the line failed (no translation)
  std::string translation;                  // Translation::text
  std::vector<std::string> tokens;          // target pieces, the final eos included
  std::vector<float> token_log_probs;       // one per token: tokens[i]'s log-probability
  float score = 0.0f;                       // sum of token_log_probs
  std::optional<double> ranking_score;      // with a length penalty: score / length^penalty
  bool truncated = false;                   // the source was cut to max_positions
  bool cut_short = false;                   // the output stopped at the length limit, before eos
  std::vector<std::string> unknown;         // words of the source with a part read as <unk>
  std::vector<std::string> target_unknown;  // score: words of the target with a part read as <unk>
  // --alternatives: per output token, the most likely pieces there and their probabilities.
  std::vector<std::vector<std::pair<std::string, float>>> alternatives;
  std::optional<std::string> alignment;  // --align: the word alignment in Pharaoh format
  std::vector<OutputRecord> n_best;      // --n-best: every hypothesis, best first
  bool has_n_best = false;               // write "n_best" (even with one entry)
  // --attribute: the translation's attributions ("attributions") and their options.
  std::shared_ptr<const AttributionResult> attributions;
  AttributionOptions attribution;
  double time_ms = 0;  // the line's share of its batch's wall time
};

// scoring: the record of minimt score (an output is never cut short).
OutputRecord make_output_record(const Model& model, const Translation& translation, long long line,
                                double time_ms, bool scoring = false);

// The translation ("" for a failed line), then a tab and the alignment if there is one (failed
// lines included), then '\n'. A '\n' or '\r' inside the translation becomes a space, so that
// every record is exactly one line.
std::string text_line(const OutputRecord& record);

// --n-best in text: one line per hypothesis, LINE<TAB>RANK<TAB>SCORE<TAB>TRANSLATION, then a tab
// and the alignment with --align; rank counts from 1; a failed line gives LINE<TAB>1<TAB><TAB>.
// SCORE is the number that ranks: the ranking score with a length penalty, else the score.
std::string n_best_text_lines(const OutputRecord& record);

// minimt score in text: the score (shortest text that reads back as the same float; "" for a
// failed line), then a tab and the alignment if there is one, then '\n'.
std::string score_text_line(const OutputRecord& record);

// One JSON object and '\n':
//   {"line":N,"source":S,"translation":T,"tokens":[pieces, eos included],"score":F,
//    "token_log_probs":[F, one per token],"time_ms":F}
// Numbers are written as the shortest text that reads back as the same float (null if not
// finite), time_ms with 3 decimals: json_writer.h writes every string and number, so control
// characters are escaped, invalid UTF-8 is written as U+FFFD and no NaN gets in. Optional
// fields come before time_ms, each only when it applies: "ranking_score", "cut_short":true,
// "unknown":[...], "alternatives":[[{"token":P,"probability":F},...],...], "truncated":true,
// "alignment":"0-0 1-1", "attributions":{...} (record/attributions.h),
// "n_best":[{"translation","tokens","token_log_probs","score"
// (,"ranking_score")(,"cut_short")(,"alignment")},...]. A failed line has only "error" between
// source and time_ms.
std::string jsonl_line(const OutputRecord& record);

// minimt score: {"line":N,"source":S,"target":T,"tokens":[pieces, eos included],
// "token_log_probs":[F],"score":F, then "unknown", "target_unknown", "truncated", "alignment",
// "attributions", "time_ms":F}; a failed line: {"line","source","target","error","time_ms"}.
std::string score_jsonl_line(const OutputRecord& record);

}  // namespace minimt
