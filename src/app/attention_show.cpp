#include "minimt/app/attention_show.h"

#include "app/view_text.h"

namespace minimt {
namespace {

std::vector<const DumpSentence*> shown(const AttentionDump& dump, const std::vector<int>& numbers) {
  std::vector<const DumpSentence*> out;
  if (numbers.empty())
    for (const DumpSentence& s : dump.sentences) out.push_back(&s);
  for (int n : numbers) out.push_back(&dump.sentences.at(n - 1));
  return out;
}

// The line that stands for a sentence without attention, or "" when it has some.
std::string without_attention(const DumpSentence& s) {
  const std::string where = "sentence " + std::to_string(s.number);
  if (!s.error.empty())
    return where + " was not translated: " + view::terminal_escape(s.error) + "\n";
  if (s.blank()) return where + " is a blank line: no tokens, no attention to draw\n";
  return "";
}

// The model and compute type that wrote the dump, then its notes on what the model's scores
// include (a T5's relative position bias), one line each; "" when options.header is false.
std::string header_text(const AttentionDump& dump, const ShowOptions& options) {
  if (!options.header) return "";
  std::string out = "model " + view::terminal_escape(dump.model);
  out += dump.compute_type.empty() ? " (compute type not recorded)"
                                   : ", compute type " + view::terminal_escape(dump.compute_type);
  out += "\n";
  for (const std::string& note : dump.notes) out += "note: " + view::terminal_escape(note) + "\n";
  return out;
}

}  // namespace

std::string show_dump(const AttentionDump& dump, const ShowOptions& options) {
  std::string out = header_text(dump, options);
  for (const DumpSentence* s : shown(dump, options.sentences)) {
    if (!out.empty()) out += "\n";
    const std::string note = without_attention(*s);
    out += note.empty() ? draw_heatmap(*s, options.choice, options.style) : note;
  }
  return out;
}

std::string show_difference(const NamedDump& a, const NamedDump& b, const ShowOptions& options) {
  const std::vector<HeadChange> changes = largest_changes(a, b, options.sentences);
  std::string out;
  if (options.header) {
    out = "A: " + header_text(a.dump, options) + "B: " + header_text(b.dump, options);
  }
  const std::vector<const DumpSentence*> in_b = shown(b.dump, options.sentences);
  for (const DumpSentence* sb : in_b) {
    if (!out.empty()) out += "\n";
    const DumpSentence& sa = a.dump.sentences.at(sb->number - 1);
    const std::string note = without_attention(*sb);
    out += note.empty()
               ? draw_heatmap_difference(sa, *sb, options.choice, options.style, a.name, b.name)
               : note;
  }
  return out + "\n" + change_table(changes, a, b);
}

}  // namespace minimt
