// Two runs of a sentence drawn as one terminal heatmap (terminal_heatmap.h,
// draw_heatmap_difference): B - A of what --values names (the weights, the scores or weight x
// norm, or an attribution method's map) per cell on the diverging scale, and on the right each
// run's probability of the piece predicted at a decoder step, or, for weight x norm, each run's
// head norm at the query. The logit lens of two runs is a table (terminal_lens.cpp).
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/views/heatmap_choice.h"
#include "app/views/terminal_attribution.h"
#include "app/views/terminal_cells.h"
#include "app/views/terminal_lens.h"
#include "app/views/view_text.h"
#include "minimt/app/views/terminal_heatmap.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

using view::Chosen;
using view::Grid;

constexpr int kRightLabel = 40;  // "→ piece A 0.95 B 0.93 -0.02", "A 1.234 B 0.987 -0.247"

// What the cells of a difference compare, by --values: the weights, or an extra of the dump.
struct Kind {
  const char* suffix;  // of the extra's key; nullptr: the weights
  const char* option;  // that writes it
  const char* what;    // in the title
  const char* legend;  // names the change in the legend
};

Kind kind_of(HeatmapValues values) {
  if (values == HeatmapValues::kScores)
    return {dump_schema::kScoresSuffix, "--dump-scores", " \u00b7 scores (before softmax)",
            "score B - A"};
  if (values == HeatmapValues::kNorms)
    return {dump_schema::kWeightedNormsSuffix, "--dump-norms", " \u00b7 weight x norm",
            "weight x norm B - A"};
  return {nullptr, nullptr, "", "B - A"};
}

std::string change_number(const char* format, double x) {
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

// What `draw` returns, an Error it throws prefixed with the run's name.
template <typename Draw>
auto in_run(const std::string& name, Draw draw) {
  try {
    return draw();
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
}

// For the decoder's steps: the piece B predicted and, when both dumps hold them, each run's
// probability of it and B - A.
std::vector<std::string> output_labels(const DumpSentence& a, const DumpSentence& b) {
  const size_t n = b.output_tokens.size();
  const bool both = a.output_log_probs.size() == n && b.output_log_probs.size() == n;
  std::vector<std::string> labels;
  for (size_t i = 0; i < n; ++i) {
    std::string label = "\u2192 " + view::terminal_escape(b.output_tokens[i]);
    if (both) {
      const double pa = std::exp(a.output_log_probs[i]), pb = std::exp(b.output_log_probs[i]);
      label += " A " + change_number("%.2f", pa) + " B " + change_number("%.2f", pb) + " " +
               change_number("%+.2f", pb - pa);
    }
    labels.push_back(label);
  }
  return labels;
}

// Each query's head norm ||sum_j a_ij v_j W_O|| (the mean of the heads' for an average) in A and
// in B and B - A; none when either dump lacks the head norms.
std::vector<std::string> head_norm_labels(const DumpSentence& a, const Chosen& ca,
                                          const DumpSentence& b, const Chosen& cb) {
  const std::string key = dump_schema::extra_key(*ca.type, dump_schema::kHeadNormsSuffix);
  const AttentionMatrices *xa = a.find_extra(key), *xb = b.find_extra(key);
  if (!xa || !xb || xa->heads != ca.m->heads || xb->heads != cb.m->heads ||
      xa->layers() != ca.m->layers() || xb->layers() != cb.m->layers())
    return {};
  const std::vector<float> na =
      view::chosen_extra(a, ca, dump_schema::kHeadNormsSuffix, "--dump-norms");
  const std::vector<float> nb =
      view::chosen_extra(b, cb, dump_schema::kHeadNormsSuffix, "--dump-norms");
  std::vector<std::string> labels;
  for (size_t i = 0; i < na.size() && i < nb.size(); ++i)
    labels.push_back("A " + change_number("%.3f", na[i]) + " B " + change_number("%.3f", nb[i]) +
                     " " + change_number("%+.3f", nb[i] - na[i]));
  return labels;
}

// B - A of an attribution method's map (show A B --values METHOD): the same sentence's
// tokens in both runs, so cell (t, i) of one is cell (t, i) of the other.
std::string draw_attribution_difference(const DumpSentence& a, const DumpSentence& b,
                                        const HeatmapChoice& choice, const TerminalStyle& style,
                                        const std::string& a_name, const std::string& b_name) {
  const std::string method = enum_name(kHeatmapValueNames, choice.values);
  if (view::blank_line(a) && view::blank_line(b)) return view::blank_line_note(b);
  const view::AttributionMap ma = in_run(a_name, [&] { return view::attribution_map(a, choice); });
  const view::AttributionMap mb = in_run(b_name, [&] { return view::attribution_map(b, choice); });
  if (ma.values->size() != mb.values->size())
    throw Error("the " + method + " maps of " + a_name + " and " + b_name + " differ in shape");
  const int cols = ma.cols;
  const bool causal = ma.causal;
  std::vector<float> change(ma.values->size());
  for (size_t k = 0; k < change.size(); ++k) change[k] = (*mb.values)[k] - (*ma.values)[k];
  const float scale = view::largest(change, cols, causal);
  const std::string title =
      "Attribution \u00b7 " + method + " of each output to the " +
      (causal ? "decoder input" : "source") + " \u00b7 sentence " + std::to_string(b.number) +
      ": B - A, B = " + view::terminal_escape(b_name) + ", A = " + view::terminal_escape(a_name);
  Grid g = view::labelled_grid(b, *ma.type, title, view::attribution_axes(causal));
  if (choice.values == HeatmapValues::kIntegratedGradients) {
    g.heading.push_back("A: " + view::integration_text(*ma.attribution));
    g.heading.push_back("B: " + view::integration_text(*mb.attribution));
  }
  g.right_limit = kRightLabel;
  g.right = output_labels(a, b);
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    return view::change_cell(change[static_cast<size_t>(i) * cols + j], scale, colours);
  };
  const std::string name = method + " B - A";
  g.legend = scale > 0 ? view::change_legend(colours, scale, causal, name)
                       : name + " is 0 in every cell: the two runs agree here";
  return view::draw_grid(g, style.width);
}

}  // namespace

std::string draw_heatmap_difference(const DumpSentence& a, const DumpSentence& b,
                                    const HeatmapChoice& choice, const TerminalStyle& style,
                                    const std::string& a_name, const std::string& b_name) {
  if (choice.values == HeatmapValues::kLens)
    return view::draw_lens_difference(a, b, style, a_name, b_name);
  if (is_attribution(choice.values))
    return draw_attribution_difference(a, b, choice, style, a_name, b_name);
  const Chosen ca = in_run(a_name, [&] { return view::choose(a, choice); });
  HeatmapChoice same = choice;  // the same layer and head, by their numbers, in B
  same.layer = std::stoi(ca.m->layer_labels[ca.layer]);
  const Chosen cb = in_run(b_name, [&] { return view::choose(b, same); });
  if (cb.m->layer_labels[cb.layer] != ca.m->layer_labels[ca.layer])
    throw Error("layer " + ca.m->layer_labels[ca.layer] + " is not in " + b_name);
  const Kind kind = kind_of(choice.values);
  auto values = [&kind](const DumpSentence& s, const Chosen& c) {
    return kind.suffix ? view::chosen_extra(s, c, kind.suffix, kind.option)
                       : view::chosen_weights(c);
  };
  const std::vector<float> va = in_run(a_name, [&] { return values(a, ca); });
  const std::vector<float> vb = in_run(b_name, [&] { return values(b, cb); });
  const int cols = ca.m->cols;
  const bool causal = ca.type->causal;
  std::vector<float> change(va.size());
  for (size_t k = 0; k < va.size(); ++k) change[k] = vb[k] - va[k];
  const float scale = view::largest(change, cols, causal);
  std::string what = std::string(kind.what) + ": B - A, B = " + view::terminal_escape(b_name) +
                     ", A = " + view::terminal_escape(a_name);
  if (!ca.head && view::head_text(ca) != view::head_text(cb))
    what += " (B: " + view::head_text(cb) + ")";
  Grid g = view::grid_for(b, ca, what);
  g.right_limit = kRightLabel;
  if (!g.right.empty()) g.right = output_labels(a, b);
  if (choice.values == HeatmapValues::kNorms) {
    std::vector<std::string> norms = head_norm_labels(a, ca, b, cb);
    if (!norms.empty()) {
      g.right = std::move(norms);
      g.heading.push_back(
          "right: the head norm ||sum_j a_ij v_j W_O|| at each query (the whole of what the "
          "head adds there; for an average, the mean of its heads'), in A, in B, and B - A");
    }
  }
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    return view::change_cell(change[static_cast<size_t>(i) * cols + j], scale, colours);
  };
  g.legend = scale > 0 ? view::change_legend(colours, scale, causal, kind.legend)
                       : std::string(kind.legend) + " is 0 in every cell: the two runs agree here";
  return view::draw_grid(g, style.width);
}

}  // namespace minimt
