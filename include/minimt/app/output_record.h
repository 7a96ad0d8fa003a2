// The output records of `minimt translate`, one per input line: built as data from the
// translation, then written out once, in text or JSON Lines form.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "minimt/app/translator.h"
#include "minimt/model/model.h"

namespace minimt {

struct OutputRecord {
  long long line = 0;                    // the input line's number, from 1
  std::string source;                    // the input line
  std::string error;                     // not empty: the line failed (no translation)
  std::string translation;               // Translation::text
  std::vector<std::string> tokens;       // the target pieces generated, without the final eos
  float score = 0.0f;                    // Translation::score (sum of log-probabilities, eos incl.)
  bool truncated = false;                // the source was cut to max_positions
  std::optional<std::string> alignment;  // --align: the word alignment in Pharaoh format
  double time_ms = 0;                    // the line's share of its batch's wall time
};

OutputRecord make_output_record(const Model& model, const Translation& translation, long long line,
                                double time_ms);

// The translation ("" for a failed line), then a tab and the alignment if there is one (failed
// lines included), then '\n'. A '\n' or '\r' inside the translation becomes a space, so that
// every record is exactly one line.
std::string text_line(const OutputRecord& record);

// One JSON object and '\n':
//   {"line":N,"source":S,"translation":T,"tokens":[pieces],"score":F,"time_ms":F}
// score is written as the shortest text that reads back as the same float (null if not
// finite), time_ms with 3 decimals (null if not finite): json_writer.h writes every string and
// number, so control characters are escaped, invalid UTF-8 is written as U+FFFD and no NaN
// gets in. A cut source adds "truncated":true and --align adds "alignment":"0-0 1-1", both
// before time_ms. A failed line has only "error" between source and time_ms.
std::string jsonl_line(const OutputRecord& record);

}  // namespace minimt
