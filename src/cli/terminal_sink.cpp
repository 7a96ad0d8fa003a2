// TerminalSink (terminal_sink.h): the warnings, named line by line, then counted.
#include "cli/terminal_sink.h"

#include <algorithm>
#include <vector>

namespace minimt::cli {
namespace {

// Warnings of one kind named line by line; the rest are counted at the end.
constexpr long long kWarningsPerKind = 10;

// 'a', 'b' and 2 more: the first 8 words of a list, quoted.
std::string listed_words(const std::vector<std::string>& words) {
  std::string text;
  const size_t shown = std::min<size_t>(words.size(), 8);
  for (size_t i = 0; i < shown; ++i) text += (i ? ", '" : "'") + words[i] + "'";
  if (shown < words.size()) text += " and " + std::to_string(words.size() - shown) + " more";
  return text;
}

}  // namespace

void TerminalSink::notice(const LineNotice& n) {
  // Output to the terminal that shows the bar goes above the bar, not through it (the bar
  // stays away until the batch is written).
  if (output_under_bar_) progress_.clear();
  const std::string where = "minimt: warning: line " + std::to_string(n.line);
  if (n.truncated && !quiet_)
    progress_.message(where + " is longer than the model's max_positions (" +
                      std::to_string(max_positions_) + " tokens) and was cut");
  const bool unknown = !n.unknown.empty() || !n.target_unknown.empty();
  if (unknown && !quiet_ && unknown_lines_++ < kWarningsPerKind) {
    // score names the side: the source and the target have a tokenizer each.
    if (!n.unknown.empty())
      progress_.message(where + ": the model does not know " + listed_words(n.unknown) +
                        (n.scored ? " in the source" : "") + " (read as <unk>); see minimt vocab");
    if (!n.target_unknown.empty())
      progress_.message(where + ": the model does not know " + listed_words(n.target_unknown) +
                        " in the target (read as <unk>); see minimt vocab --side target");
  }
  if (n.cut_short && !quiet_ && cut_short_lines_++ < kWarningsPerKind)
    progress_.message(where + ": the translation stopped at " + std::to_string(n.output_tokens) +
                      " tokens (--max-length " + std::to_string(max_length_) + ", max_positions " +
                      std::to_string(max_positions_) + ") before its end (eos)");
  if (!n.error.empty())
    progress_.message("minimt: error: line " + std::to_string(n.line) + ": " + n.error);
}

void TerminalSink::finish() {
  out_.flush();  // false if the reader has gone, which is not an error
  if (unknown_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(unknown_lines_ - kWarningsPerKind) +
                      " more lines have words the model does not know (\"unknown\" in jsonl)");
  if (cut_short_lines_ > kWarningsPerKind)
    progress_.message("minimt: warning: " + std::to_string(cut_short_lines_ - kWarningsPerKind) +
                      " more translations stopped before their end (\"cut_short\" in jsonl)");
  progress_.clear();
}

}  // namespace minimt::cli
