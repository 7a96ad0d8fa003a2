#include "minimt/app/head_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/view_text.h"
#include "minimt/app/attention_dump.h"

namespace minimt {
namespace {

using view::html_escape;

// The most likely tokens kept at each position, as translate --view keeps them.
constexpr int kExampleAlternatives = 5;

std::string number(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string fixed(const std::optional<double>& value, int decimals) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, *value);
  return text;
}

// RdBu, from white out: the side below 0 (red) and above (blue).
constexpr int kRed[][3] = {
    {255, 255, 255}, {253, 219, 199}, {244, 165, 130}, {214, 96, 77}, {178, 24, 43}};
constexpr int kBlue[][3] = {
    {255, 255, 255}, {209, 229, 240}, {146, 197, 222}, {67, 147, 195}, {33, 102, 172}};
constexpr int kStops = 5;

std::string css(const Rgb& c) {
  return "rgb(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + ")";
}

// What hovering over a cell shows (a title attribute: one statistic a line).
std::string cell_title(const HeadResult& h, int rank, int total) {
  const PatternStats& p = h.pattern;
  std::string t =
      std::string(kind_name(h.kind)) + " layer " + std::to_string(h.layer) + " head " +
      std::to_string(h.head) + ": rank " + std::to_string(rank) + " of " + std::to_string(total) +
      "\nchange in log-probability per token when masked: " + number(h.delta_log_prob, "%.4f");
  if (h.delta_exact_match) t += "\nchange in exact match: " + fixed(h.delta_exact_match, 3);
  t += "\nentropy " + fixed(p.entropy, 3) + " nats, max weight " + fixed(p.max_weight, 3) +
       "\nweight on: same " + fixed(p.same, 3) + ", previous " + fixed(p.previous, 3) + ", first " +
       fixed(p.first, 3) + ", eos " + fixed(p.eos, 3);
  if (p.alignment_agreement)
    t += "\narg-max agrees with the head average: " + fixed(p.alignment_agreement, 3);
  return t;
}

// One cell: the importance and the main statistics in it, all of them on hover; a link that
// shows the head's heatmaps below (the attention page reads the address).
std::string cell_html(const HeadResult& h, int rank, int total, double scale) {
  const PatternStats& p = h.pattern;
  const Rgb colour = importance_colour(h.delta_log_prob, scale);
  const bool dark = std::abs(h.delta_log_prob) > 0.6 * scale;
  std::string stats = "ent " + fixed(p.entropy, 2) + " &middot; max " + fixed(p.max_weight, 2);
  std::string more =
      h.kind == AttentionKind::kCross
          ? "agree " + fixed(p.alignment_agreement, 2) + " &middot; eos " + fixed(p.eos, 2)
          : "same " + fixed(p.same, 2) + " &middot; prev " + fixed(p.previous, 2);
  return "<td class=\"head-cell\" data-type=\"" + std::string(kind_name(h.kind)) +
         "\" data-layer=\"" + std::to_string(h.layer) + "\" data-head=\"" + std::to_string(h.head) +
         "\" data-rank=\"" + std::to_string(rank) + "\" data-delta=\"" +
         number(h.delta_log_prob, "%.9g") + "\" style=\"background:" + css(colour) +
         (dark ? ";color:#fff" : "") + "\" title=\"" + html_escape(cell_title(h, rank, total)) +
         "\"><a href=\"#show=" + kind_name(h.kind) + "&amp;layer=" + std::to_string(h.layer) +
         "&amp;head=" + std::to_string(h.head) + "\"><span class=\"delta\">" +
         number(h.delta_log_prob, "%+.4f") + "</span><span class=\"rank\">#" +
         std::to_string(rank) + "</span><span class=\"stats\">" + stats + "<br>" + more +
         "</span></a></td>";
}

// The layers x heads table of one type; heads are ranked in `a.heads` (most important first).
std::string grid_html(const HeadAnalysis& a, AttentionKind kind, double scale) {
  int layers = 0, heads = 0;
  for (const HeadResult& h : a.heads)
    if (h.kind == kind) {
      layers = std::max(layers, h.layer + 1);
      heads = std::max(heads, h.head + 1);
    }
  if (layers == 0) return "";
  std::vector<std::string> cells(static_cast<size_t>(layers) * heads, "<td></td>");
  const int total = static_cast<int>(a.heads.size());
  for (int rank = 0; rank < total; ++rank) {
    const HeadResult& h = a.heads[rank];
    if (h.kind == kind) cells[h.layer * heads + h.head] = cell_html(h, rank + 1, total, scale);
  }
  const std::string type = kind_name(kind);
  std::string out = "<figure class=\"head-grid\" data-type=\"" + type + "\"><figcaption>" +
                    view::type_text(type).heading + "</figcaption><table><tr><th></th>";
  for (int h = 0; h < heads; ++h) out += "<th>head " + std::to_string(h) + "</th>";
  out += "</tr>\n";
  for (int l = 0; l < layers; ++l) {
    out += "<tr><th>layer " + std::to_string(l) + "</th>";
    for (int h = 0; h < heads; ++h) out += cells[l * heads + h];
    out += "</tr>\n";
  }
  return out + "</table></figure>\n";
}

// The colour scale, from the most harmful mask to the most helpful one.
std::string legend_html(double scale) {
  std::string stops;
  for (int k = kStops - 1; k >= 0; --k) stops += css({kRed[k][0], kRed[k][1], kRed[k][2]}) + ",";
  for (int k = 1; k < kStops; ++k)
    stops += css({kBlue[k][0], kBlue[k][1], kBlue[k][2]}) + (k + 1 < kStops ? "," : "");
  return "<div class=\"importance-legend\"><span>" + number(-scale, "%+.4f") +
         "</span><span class=\"bar\" style=\"background:linear-gradient(to right," + stops +
         ")\"></span><span>" + number(scale, "%+.4f") +
         "</span> change in log-probability per token when the head alone is masked</div>\n";
}

std::string prune_html(const HeadAnalysis& a) {
  if (a.prune.empty()) return "";
  std::string out =
      "<details class=\"prune\"><summary>Pruning, least important head first (Michel et al. "
      "2019)</summary><table><tr><th>removed</th><th>head</th><th>log-prob / token</th>" +
      std::string(a.exact_match ? "<th>exact match</th>" : "") + "</tr>\n";
  for (const PrunePoint& p : a.prune)
    out += "<tr><td>" + std::to_string(p.removed) + "</td><td>" + html_escape(p.head) +
           "</td><td>" + number(p.log_prob_per_token, "%.4f") + "</td>" +
           (p.exact_match ? "<td>" + fixed(p.exact_match, 4) + "</td>" : "") + "</tr>\n";
  return out + "</table></details>\n";
}

}  // namespace

Rgb importance_colour(double delta, double scale) {
  if (!(scale > 0) || !std::isfinite(delta)) return {};
  const double x = std::min(1.0, std::abs(delta) / scale) * (kStops - 1);
  const int i = std::min(kStops - 2, static_cast<int>(x));
  const double t = x - i;
  const int(*side)[3] = delta < 0 ? kRed : kBlue;
  auto mix = [&](int c) {
    return static_cast<int>(std::lround(side[i][c] + (side[i + 1][c] - side[i][c]) * t));
  };
  return {mix(0), mix(1), mix(2)};
}

std::string head_grid_html(const HeadAnalysis& a, int examples) {
  double scale = 0;
  for (const HeadResult& h : a.heads) scale = std::max(scale, std::abs(h.delta_log_prob));
  std::string out =
      "<section class=\"head-analysis\">\n<h2>Heads by importance</h2>\n<p>" +
      std::to_string(a.sentences) + " sentences, " + std::to_string(a.tokens) +
      " reference tokens, log-probability per token " + number(a.log_prob_per_token, "%.4f") +
      (a.exact_match ? ", exact match " + fixed(a.exact_match, 4) : "") +
      ".</p>\n<p class=\"hint\">Each cell is one head: its importance is the change in the "
      "reference's log-probability per token when that head alone is masked (teacher forcing). "
      "Red: masking it costs; blue: masking it helps; white: no change. Rank 1 is the most "
      "needed. Hover over a cell for its statistics (unmasked run); click it to show its "
      "heatmaps below. Ablation measures what removing a head costs on these sentences, not "
      "what the head means.</p>\n" +
      legend_html(scale) + "<div class=\"head-grids\">\n";
  for (AttentionKind kind :
       {AttentionKind::kEncoder, AttentionKind::kDecoder, AttentionKind::kCross})
    out += grid_html(a, kind, scale);
  out += "</div>\n" + prune_html(a) + "<h2>Example sentences</h2>\n<p class=\"hint\">" +
         (examples == 1 ? std::string("The first pair")
                        : "The first " + std::to_string(examples) + " pairs") +
         " of the input, scored by the unmasked model (teacher forcing on the reference): "
         "their attention, as minimt view draws it.</p>\n</section>\n";
  return out;
}

AttentionDump record_examples(const Translator& translator, const std::vector<SentencePair>& pairs,
                              int count) {
  TranslateOptions options;
  options.columns = LineColumns::kSourceAndTarget;
  options.record_attention = true;
  options.alternatives = kExampleAlternatives;
  std::vector<std::string> lines;
  for (size_t i = 0; i < pairs.size() && static_cast<int>(i) < count; ++i)
    lines.push_back(pairs[i].source + '\t' + pairs[i].reference);
  std::stringstream dump;
  AttentionDumpWriter writer(dump, translator.model());
  for (const Translation& t : translator.translate(lines, options)) writer.add(t);
  writer.finish();
  return read_attention_dump(dump, "the examples' attention");
}

ViewSummary write_head_page(const HeadAnalysis& analysis, const AttentionDump& examples,
                            std::ostream& out) {
  ViewOptions options;
  options.title = "minimt heads";
  options.preface = head_grid_html(analysis, static_cast<int>(examples.sentences.size()));
  return write_attention_page(examples, out, options);
}

}  // namespace minimt
