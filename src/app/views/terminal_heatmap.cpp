// The terminal heatmaps of one dump (terminal_heatmap.h): what to draw is chosen in
// heatmap_choice.cpp, the grid is laid out in terminal_grid.cpp, terminal_cells.cpp paints the
// cells; the difference of two dumps is drawn in terminal_difference.cpp, the logit lens in
// terminal_lens.cpp, an attribution method's map in terminal_attribution.cpp.
#include "minimt/app/views/terminal_heatmap.h"

#include "app/views/heatmap_choice.h"
#include "app/views/terminal_attribution.h"
#include "app/views/terminal_cells.h"
#include "app/views/terminal_lens.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

using view::Chosen;
using view::Grid;

// The scores or weight x norm of the chosen heatmap, each map scaled to its own largest value.
std::string draw_extra(const DumpSentence& s, const Chosen& c, const HeatmapChoice& choice,
                       const TerminalStyle& style) {
  const bool scores = choice.values == HeatmapValues::kScores;
  const std::vector<float> values =
      scores ? view::chosen_extra(s, c, dump_schema::kScoresSuffix, "--dump-scores")
             : view::chosen_extra(s, c, dump_schema::kWeightedNormsSuffix, "--dump-norms");
  const int cols = c.m->cols;
  const bool causal = c.type->causal;
  const float scale = view::largest(values, cols, causal);
  Grid g =
      view::grid_for(s, c, scores ? " \u00b7 scores (before softmax)" : " \u00b7 weight x norm");
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    const float v = values[static_cast<size_t>(i) * cols + j];
    if (scores) return view::change_cell(v, scale, colours);
    return view::weight_cell(scale > 0 ? v / scale : 0.0f, colours);
  };
  g.legend = scores ? view::signed_legend(colours, scale, causal, "score")
                    : view::magnitude_legend(colours, scale, causal, "weight x norm");
  return view::draw_grid(g, style.width);
}

}  // namespace

HeatmapChoice parse_heatmap_choice(const std::string& spec) {
  HeatmapChoice choice;
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) throw Error("'" + spec + "' is not TYPE[:LAYER[:HEAD]]");
  choice.type = parts[0];
  if (!dump_schema::find_attention_type(choice.type))
    throw Error("'" + choice.type + "' is not encoder, decoder or cross (TYPE[:LAYER[:HEAD]])");
  auto number = [&](const std::string& text, bool negative, const char* what) {
    const size_t digits = negative && !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() == digits || text.size() > digits + 6 ||
        text.find_first_not_of("0123456789", digits) != std::string::npos)
      throw Error("'" + text + "' is not " + what + " (TYPE[:LAYER[:HEAD]])");
    return std::stoi(text);
  };
  if (parts.size() > 1)
    choice.layer = number(parts[1], true, "a layer number (negative from the end)");
  if (parts.size() > 2 && parts[2] != "avg")
    choice.head = number(parts[2], false, "a head number or avg");
  return choice;
}

std::string draw_heatmap(const DumpSentence& sentence, const HeatmapChoice& choice,
                         const TerminalStyle& style) {
  if (choice.values == HeatmapValues::kLens) return view::draw_lens(sentence, style);
  if (is_attribution(choice.values)) return view::draw_attribution(sentence, choice, style);
  const Chosen c = view::choose(sentence, choice);
  if (choice.values != HeatmapValues::kWeights) return draw_extra(sentence, c, choice, style);
  Grid g = view::grid_for(sentence, c, "");
  const std::vector<float> w = view::chosen_weights(c);
  const int cols = c.m->cols;
  const bool causal = c.type->causal;
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    return view::weight_cell(w[static_cast<size_t>(i) * cols + j], colours);
  };
  g.legend = view::weight_legend(colours, causal);
  return view::draw_grid(g, style.width);
}

}  // namespace minimt
