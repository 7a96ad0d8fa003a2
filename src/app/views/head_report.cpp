#include "minimt/app/views/head_report.h"

#include <cstdio>

#include "minimt/base/json_writer.h"
#include "minimt/base/visible_text.h"

namespace minimt {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string fixed_or_dash(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : "-";
}

std::string pad(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// The sentences whose greedy translation changes when one head is ablated, head by head in the
// table's order.
std::string changed_text(const HeadAnalysis& a) {
  std::string out;
  for (const HeadResult& h : a.heads) {
    if (h.changed.empty()) continue;
    out += std::string(kind_name(h.kind)) + ":" + std::to_string(h.layer) + ":" +
           std::to_string(h.head) + ", " + std::to_string(h.changed.size()) + " sentence" +
           (h.changed.size() == 1 ? "" : "s") + "\n";
    for (const ChangedTranslation& c : h.changed)  // the model's text: its pieces may hold ESC
      out += "  line " + std::to_string(c.line) + ": " + visible_text(c.before) + " \u2192 " +
             visible_text(c.after) + "\n";
  }
  if (out.empty()) return "\nno greedy translation changes when any one head is ablated\n";
  return "\ngreedy translations that change when one head alone is ablated (line: intact \u2192 "
         "ablated):\n" +
         out;
}

// With --attribution: how often the means of cross heads agree with it (a line of the text).
std::string attribution_summary(const HeadAnalysis& a) {
  if (!a.attribution) return "";
  std::string out = std::string("\nattr_agree of the mean of the cross heads, with ") +
                    enum_name(kAttributionMethodNames, *a.attribution);
  if (a.ig_steps > 0)
    out += " (" + std::to_string(a.ig_steps) + (a.ig_steps == 1 ? " step, " : " steps, ") +
           enum_name(kIgRuleNames, a.ig_rule) + " rule)";
  out += ":";
  const std::vector<double>& layers = a.layer_attribution_agreement;
  if (layers.empty()) return out + " - (no row has two source tokens or more)\n";
  for (size_t l = 0; l < layers.size(); ++l)
    out += (l ? ", layer " : " layer ") + std::to_string(l) + " " + fixed(layers[l], 4);
  return out + "; every layer's heads " + fixed(a.all_layers_attribution_agreement, 4) + "\n";
}

// The same in JSON Lines: a record per layer's mean, and one for every layer's.
std::string attribution_records(const HeadAnalysis& a) {
  if (!a.attribution) return "";
  std::string out;
  const std::string method = enum_name(kAttributionMethodNames, *a.attribution);
  const std::vector<double>& layers = a.layer_attribution_agreement;
  for (size_t l = 0; l <= layers.size() && !layers.empty(); ++l) {
    out += "{\"average\":\"cross\",";
    if (l < layers.size()) out += "\"layer\":" + std::to_string(l) + ",";
    out += "\"attribution\":\"" + method + "\",\"attribution_agreement\":";
    append_json_float(out, static_cast<float>(
                               l < layers.size() ? layers[l] : a.all_layers_attribution_agreement));
    out += "}\n";
  }
  return out;
}

}  // namespace

const char* heads_column_legend() {
  return "columns: one row per head, the most harmful to ablate first\n"
         "  d_logp/tok  the log-probability of the references with this head alone ablated minus\n"
         "              without, summed over the sentences and divided by the number of\n"
         "              reference tokens (</s> included); teacher forcing\n"
         "  d_exact     (with --translate) the number of sentences whose greedy translation\n"
         "              equals the reference with this head alone ablated minus without,\n"
         "              divided by the number of sentences\n"
         "  the other columns describe the head's pattern on the intact run, each a mean over\n"
         "  query rows: one row per query position of every sentence, pooled (encoder: each\n"
         "  source piece; decoder and cross: each reference token, </s> included), with\n"
         "  a[i][j] the weight of query i on key j\n"
         "  entropy     -sum_j a[i][j] ln a[i][j], in nats (0: one key; ln(keys): uniform)\n"
         "  max         max_j a[i][j]\n"
         "  same        a[i][i], the query's own position (encoder and decoder)\n"
         "  prev        a[i][i-1], over the rows with i >= 1 (encoder and decoder)\n"
         "  first       a[i][0], the first key\n"
         "  eos         a[i][last], the source's final </s> (encoder and cross)\n"
         "  agree       the share of rows whose largest weight is on the key where the mean of\n"
         "              the layer's heads is largest (cross; the alignment reads that mean)\n"
         "  attr_agree  (with --attribution METHOD) the share of rows whose largest weight is on\n"
         "              the source token with the largest |attribution| of the output token by\n"
         "              METHOD (cross; teacher-forced on the reference, no head ablated)\n"
         "  left out of every pattern column: rows with a single key, whose weight is 1 whatever\n"
         "  the head does (decoder position 0, which the causal mask lets see only itself; each\n"
         "  row of a one-piece source); \"-\": the column does not apply to this type\n";
}

std::vector<std::pair<const char*, std::optional<double>>> head_numbers(const HeadResult& h,
                                                                        bool attribution) {
  const PatternStats& p = h.pattern;
  std::vector<std::pair<const char*, std::optional<double>>> numbers = {
      {"delta_log_prob", h.delta_log_prob},
      {"delta_exact_match", h.delta_exact_match},
      {"entropy", p.entropy},
      {"max_weight", p.max_weight},
      {"same", p.same},
      {"previous", p.previous},
      {"first", p.first},
      {"eos", p.eos},
      {"alignment_agreement", p.alignment_agreement}};
  if (attribution) numbers.emplace_back("attribution_agreement", p.attribution_agreement);
  return numbers;
}

std::string head_table_text(const HeadAnalysis& a) {
  std::string out = "sentences " + std::to_string(a.sentences) + ", reference tokens " +
                    std::to_string(a.tokens) + ", log-probability per token " +
                    fixed(a.log_prob_per_token, 4);
  if (a.exact_match) out += ", exact match " + fixed(*a.exact_match, 4);
  out += attribution_summary(a);
  out +=
      "\nheads by importance: the change in log-probability per token when the head alone is "
      "ablated (most harmful first)\n\n";
  out += "type     layer head  d_logp/tok";
  if (a.exact_match) out += "  d_exact";
  out += "  entropy  max   same  prev  first  eos   agree";
  out += a.attribution ? "  attr_agree\n" : "\n";
  for (const HeadResult& h : a.heads) {
    const PatternStats& p = h.pattern;
    std::string row = kind_name(h.kind);
    row += std::string(9 - row.size(), ' ');
    row += pad(std::to_string(h.layer), 5) + pad(std::to_string(h.head), 5) +
           pad(fixed(h.delta_log_prob, 4), 12);
    if (a.exact_match) row += pad(fixed_or_dash(h.delta_exact_match, 3), 9);
    row += pad(fixed(p.entropy, 2), 9) + pad(fixed(p.max_weight, 2), 6) +
           pad(fixed_or_dash(p.same, 2), 6) + pad(fixed_or_dash(p.previous, 2), 6) +
           pad(fixed(p.first, 2), 7) + pad(fixed_or_dash(p.eos, 2), 6) +
           pad(fixed_or_dash(p.alignment_agreement, 2), 7);
    if (a.attribution) row += pad(fixed_or_dash(p.attribution_agreement, 2), 12);
    out += row + "\n";
  }
  out += std::string("\n") + heads_column_legend();
  if (a.exact_match) out += changed_text(a);
  if (!a.prune.empty()) {
    out += "\npruning, least important first: heads removed, log-probability per token";
    out += a.exact_match ? ", exact match\n" : "\n";
    for (const PrunePoint& point : a.prune) {
      out +=
          pad(std::to_string(point.removed), 4) + "  " + pad(fixed(point.log_prob_per_token, 4), 9);
      if (point.exact_match) out += "  " + fixed(*point.exact_match, 4);
      if (!point.head.empty()) out += "  (" + point.head + ")";
      out += "\n";
    }
  }
  return out;
}

std::string head_table_jsonl(const HeadAnalysis& a) {
  std::string out;
  for (const HeadResult& h : a.heads) {
    out += std::string("{\"type\":\"") + kind_name(h.kind) +
           "\",\"layer\":" + std::to_string(h.layer) + ",\"head\":" + std::to_string(h.head);
    for (const auto& [name, value] : head_numbers(h, a.attribution.has_value())) {
      if (!value) continue;
      out += std::string(",\"") + name + "\":";
      append_json_float(out, static_cast<float>(*value));
    }
    if (a.exact_match) {
      out += ",\"changed\":[";
      for (size_t i = 0; i < h.changed.size(); ++i) {
        out += std::string(i ? "," : "") + "{\"line\":" + std::to_string(h.changed[i].line) +
               ",\"before\":";
        append_json_string(out, h.changed[i].before);
        out += ",\"after\":";
        append_json_string(out, h.changed[i].after);
        out += "}";
      }
      out += "]";
    }
    out += "}\n";
  }
  out += attribution_records(a);
  for (const PrunePoint& point : a.prune) {
    out += "{\"prune\":" + std::to_string(point.removed) + ",\"removed_head\":";
    append_json_string(out, point.head);
    out += ",\"log_prob_per_token\":";
    append_json_float(out, static_cast<float>(point.log_prob_per_token));
    if (point.exact_match) {
      out += ",\"exact_match\":";
      append_json_float(out, static_cast<float>(*point.exact_match));
    }
    out += "}\n";
  }
  return out;
}

std::string head_table_csv(const HeadAnalysis& a) {
  std::string out = "type,layer,head";
  if (!a.heads.empty())
    for (const auto& [name, value] : head_numbers(a.heads.front(), a.attribution.has_value()))
      out += std::string(",") + name;
  out += "\n";
  for (const HeadResult& h : a.heads) {
    out += std::string(kind_name(h.kind)) + "," + std::to_string(h.layer) + "," +
           std::to_string(h.head);
    for (const auto& [name, value] : head_numbers(h, a.attribution.has_value()))
      out += "," + (value ? fixed(*value, 6) : "");
    out += "\n";
  }
  return out;
}

}  // namespace minimt
