#include "minimt/app/views/attention_show.h"

#include "app/views/terminal_attribution.h"
#include "app/views/view_text.h"

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
// include (a T5's relative position bias) and, when an attribution is drawn, what it was
// computed in, one line each; "" when options.header is false.
std::string header_text(const AttentionDump& dump, const ShowOptions& options) {
  if (!options.header) return "";
  std::string out = "model " + view::terminal_escape(dump.model);
  out += dump.compute_type.empty() ? " (compute type not recorded)"
                                   : ", compute type " + view::terminal_escape(dump.compute_type);
  out += "\n";
  for (const std::string& note : dump.notes) out += "note: " + view::terminal_escape(note) + "\n";
  // Attributions are float32 whatever computed the translation; say so beside an int8 or bf16.
  if (is_attribution(options.choice.values) && !dump.attribution_compute_type.empty() &&
      dump.attribution_compute_type != dump.compute_type)
    out += "note: attributions computed in " +
           view::terminal_escape(dump.attribution_compute_type) + " on the " +
           view::terminal_escape(dump.compute_type) + " weights, " +
           (dump.compute_type == "int8" ? "dequantized" : "widened to float32") + "\n";
  return out;
}

// Whether some sentence of both dumps holds the head norms (--dump-norms) of the same type.
bool both_hold_head_norms(const NamedDump& a, const NamedDump& b) {
  for (size_t n = 0; n < a.dump.sentences.size() && n < b.dump.sentences.size(); ++n)
    for (const dump_schema::AttentionType& type : dump_schema::kAttentionTypes) {
      const std::string key = dump_schema::extra_key(type, dump_schema::kHeadNormsSuffix);
      if (a.dump.sentences[n].find_extra(key) && b.dump.sentences[n].find_extra(key)) return true;
    }
  return false;
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

// Why choice cannot draw an attribution method: a type without a map, a layer or a head; "" when
// it can (or names no method).
std::string attribution_choice_problem(const HeatmapChoice& choice) {
  if (!is_attribution(choice.values)) return "";
  const std::string method = enum_name(kHeatmapValueNames, choice.values);
  if (choice.type != "cross" && choice.type != "decoder")
    return "--values " + method + " has no " + choice.type +
           " map: an attribution is of each output token, to the source (--type cross) or to "
           "the decoder input (--type decoder)";
  if (choice.layer || choice.head)
    return "--values " + method +
           " draws no layers or heads: an attribution is per token, not per head (leave out "
           "--layer and --head)";
  return "";
}

std::string missing_attribution(const NamedDump& d, const ShowOptions& options) {
  const HeatmapChoice& choice = options.choice;
  if (!is_attribution(choice.values)) return "";
  const std::string problem = attribution_choice_problem(choice);
  if (!problem.empty()) return problem;
  const std::string method = enum_name(kHeatmapValueNames, choice.values);
  for (const DumpSentence* s : shown(d.dump, options.sentences))
    if (without_attention(*s).empty() && !view::blank_line(*s) &&
        !view::find_attribution(*s, method))
      return "cannot draw --values " + method + " of " + d.name + ": sentence " +
             std::to_string(s->number) + " has no " + method +
             " attributions (a dump holds them when written with --attribute " + method + ")";
  return "";
}

std::string missing_values(const NamedDump& a, const NamedDump& b, const ShowOptions& options) {
  const HeatmapChoice& choice = options.choice;
  const std::string problem = attribution_choice_problem(choice);
  if (!problem.empty()) return problem;
  const dump_schema::AttentionType* type = dump_schema::find_attention_type(choice.type);
  if (!type) return "'" + choice.type + "' is not encoder, decoder or cross";
  // The key --values reads and the option that writes it.
  std::string key = type->key, option = "--dump-types that keep " + choice.type;
  if (choice.values == HeatmapValues::kScores) {
    key = dump_schema::extra_key(*type, dump_schema::kScoresSuffix);
    option = "--dump-scores";
  } else if (choice.values == HeatmapValues::kNorms) {
    key = dump_schema::extra_key(*type, dump_schema::kWeightedNormsSuffix);
    option = "--dump-norms";
  } else if (choice.values == HeatmapValues::kLens) {
    key = dump_schema::kDecoderLayerPredictions;
    option = "--logit-lens K";
  } else if (is_attribution(choice.values)) {
    key = std::string("attributions.") + enum_name(kHeatmapValueNames, choice.values);
    option = std::string("--attribute ") + enum_name(kHeatmapValueNames, choice.values);
  }
  auto holds = [&](const DumpSentence& s) {
    if (is_attribution(choice.values))
      return view::find_attribution(s, enum_name(kHeatmapValueNames, choice.values)) != nullptr;
    switch (choice.values) {
      case HeatmapValues::kWeights:
        return s.find(choice.type) != nullptr;
      case HeatmapValues::kLens:
        return !s.layer_predictions.empty();
      default:
        return s.find_extra(key) != nullptr;
    }
  };
  for (const DumpSentence* sb : shown(b.dump, options.sentences)) {
    const DumpSentence& sa = a.dump.sentences.at(sb->number - 1);
    if (!without_attention(sa).empty() || !without_attention(*sb).empty()) continue;
    if (view::blank_line(sa) && view::blank_line(*sb)) continue;  // drawn as a note
    const bool in_a = holds(sa), in_b = holds(*sb);
    if (in_a && in_b) continue;
    const std::string lacking =
        !in_a && !in_b ? a.name + " and " + b.name + " have" : (in_a ? b.name : a.name) + " has";
    return "cannot compare " + a.name + " and " + b.name + " by --values " +
           enum_name(kHeatmapValueNames, choice.values) + ": " + lacking + " no " + key +
           " (sentence " + std::to_string(sb->number) + "; a dump holds it when written with " +
           option + ")";
  }
  return "";
}

std::string show_difference(const NamedDump& a, const NamedDump& b, const ShowOptions& options) {
  check_same_sentences(a, b);
  // The table of each head's largest change over the sentences shown: of the weights, the
  // scores, or weight x norm and the head norms; none for the logit lens.
  std::string tables;
  auto table = [&](const char* suffix, const std::string& what, bool per_row) {
    tables +=
        "\n" + change_table(largest_changes(a, b, options.sentences, suffix), a, b, what, per_row);
  };
  switch (options.choice.values) {
    case HeatmapValues::kWeights:
      table(nullptr, "", false);
      break;
    case HeatmapValues::kScores:
      table(dump_schema::kScoresSuffix, "of the scores", false);
      break;
    case HeatmapValues::kNorms:
      table(dump_schema::kWeightedNormsSuffix, "of weight x norm", false);
      if (both_hold_head_norms(a, b))
        table(dump_schema::kHeadNormsSuffix, "of the head norm", true);
      break;
    default:  // the logit lens and the attributions: no heads to list
      break;
  }
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
  return out + tables;
}

}  // namespace minimt
