#include "app/views/terminal_attribution.h"

#include <cmath>
#include <cstdio>

#include "app/views/heatmap_choice.h"
#include "app/views/terminal_cells.h"
#include "app/views/terminal_grid.h"
#include "minimt/base/error.h"
#include "minimt/base/text_input.h"

namespace minimt::view {

std::string integration_text(const DumpAttribution& a) {
  float gap = 0;
  for (float g : a.completeness_gap)
    if (std::fabs(g) > gap) gap = std::fabs(g);
  char number[32];
  std::snprintf(number, sizeof number, "%.4g", gap);
  return std::to_string(a.steps) + (a.steps == 1 ? " step, " : " steps, ") + a.rule + " rule, largest |completeness gap| " +
         number;
}

bool blank_line(const DumpSentence& s) {
  return s.error.empty() && s.attributions.empty() && is_blank_input(s.source);
}

std::string blank_line_note(const DumpSentence& s) {
  return "sentence " + std::to_string(s.number) +
         " is a blank line: its empty translation is not attributed\n";
}

const DumpAttribution* find_attribution(const DumpSentence& s, const std::string& method) {
  for (const DumpAttribution& a : s.attributions)
    if (a.method == method) return &a;
  return nullptr;
}

AttributionMap attribution_map(const DumpSentence& s, const HeatmapChoice& choice) {
  const std::string method = enum_name(kHeatmapValueNames, choice.values);
  const dump_schema::AttentionType* type = dump_schema::find_attention_type(choice.type);
  if (!type || type->rows != dump_schema::Axis::kDecoderInput)
    throw Error("--values " + method +
                " has no encoder map: an attribution is of each output token, to the source "
                "(--type cross) or to the decoder input (--type decoder)");
  const std::string where = "sentence " + std::to_string(s.number);
  const DumpAttribution* a = find_attribution(s, method);
  if (!a)
    throw Error(where + " has no " + method + " attributions (write them with --attribute " +
                method + ")");
  AttributionMap map{type,
                     a,
                     type->causal ? &a->target : &a->source,
                     static_cast<int>(s.decoder_input_tokens.size()),
                     static_cast<int>(s.tokens(type->cols).size()),
                     type->causal};
  if (map.values->size() != static_cast<size_t>(map.rows) * map.cols)
    throw Error(where + "'s " + method + " attributions are not [" + std::to_string(map.rows) +
                "][" + std::to_string(map.cols) + "]");
  return map;
}

std::string draw_attribution(const DumpSentence& s, const HeatmapChoice& choice,
                             const TerminalStyle& style) {
  const std::string method = enum_name(kHeatmapValueNames, choice.values);
  if (blank_line(s)) return blank_line_note(s);
  const AttributionMap map = attribution_map(s, choice);
  const std::vector<float>& values = *map.values;
  const int cols = map.cols;
  const bool causal = map.causal;
  const bool magnitude = choice.values == HeatmapValues::kSaliency;
  const float scale = largest(values, cols, causal);
  std::string title = "Attribution \u00b7 " + method + " of each output to the " +
                      (causal ? "decoder input" : "source") + " \u00b7 sentence " +
                      std::to_string(s.number);
  if (choice.values == HeatmapValues::kIntegratedGradients)
    title += " \u00b7 " + integration_text(*map.attribution);
  Grid g = labelled_grid(s, *map.type, title, attribution_axes(causal));
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return masked_cell(colours);
    const float v = values[static_cast<size_t>(i) * cols + j];
    if (magnitude) return weight_cell(scale > 0 ? v / scale : 0.0f, colours);
    return change_cell(v, scale, colours);
  };
  g.legend = magnitude ? magnitude_legend(colours, scale, causal, method)
                       : signed_legend(colours, scale, causal, method);
  return draw_grid(g, style.width);
}

std::string attribution_axes(bool causal) {
  return "rows: outputs = decoder input pieces (the predicted piece on the right) \u00b7 "
         "columns: " +
         std::string(causal ? "decoder input pieces (j > t masked: it cannot move output t)"
                            : "source pieces");
}

}  // namespace minimt::view
