// The terminal heatmaps (terminal_heatmap.h): what to draw is chosen here, the grid is laid out
// in blocks of columns here, and terminal_cells.cpp paints the cells.
#include "minimt/app/terminal_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "app/terminal_cells.h"
#include "app/terminal_text.h"
#include "app/view_text.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

using view::fit_width;
using view::pad_width;
using view::terminal_escape;
using view::terminal_width;

constexpr int kMaxRowLabel = 16;     // columns of the pieces left of the rows
constexpr int kMaxRightLabel = 24;   // of the predicted piece and its probability
constexpr int kMaxColumnLabel = 10;  // lines of the pieces written downwards

// What one drawing shows, whatever chose it.
struct Grid {
  std::vector<std::string> heading;            // prose lines above, wrapped to the width
  std::vector<std::string> rows, cols, right;  // labels, terminal_escape'd; right may be empty
  std::function<std::string(int, int)> cell;   // the painted cell of (row, col)
  TerminalColours colours = TerminalColours::kPlain;
  std::string legend;  // one line under it
};

// The words of `text`: what lies between the spaces a line may break at. The spaces of painted
// cells (from a colour's escape sequence to the reset, "\x1b[0m") are part of the picture, not
// breaks.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out(1);
  bool painted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\x1b[") == 0) painted = text.compare(i, 4, "\x1b[0m") != 0;
    if (text[i] == ' ' && !painted)
      out.emplace_back();
    else
      out.back() += text[i];
  }
  return out;
}

// `text` in lines of at most `width` columns, broken at spaces (a longer word is cut).
std::vector<std::string> wrap(const std::string& text, int width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& word : words(text)) {
    if (!line.empty() && terminal_width(line) + 1 + terminal_width(word) > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(fit_width(line, width));
  for (std::string& l : lines) l = fit_width(l, width);
  return lines;
}

// The characters of a column label written downwards, at most `count` of them (the last "…"
// when cut), each padded to the two columns of a cell.
std::vector<std::string> downwards(const std::string& label, int count) {
  std::vector<std::string> chars;
  for (const view::TerminalChar& c : view::terminal_chars(label))
    if (c.width > 0) chars.push_back(c.width == 2 ? c.bytes : c.bytes + " ");
  if (static_cast<int>(chars.size()) > count) {
    chars.resize(count);
    chars.back() = "\u2026 ";
  }
  return chars;
}

int widest(const std::vector<std::string>& labels, int limit) {
  int width = 0;
  for (const std::string& l : labels) width = std::max(width, terminal_width(l));
  return std::min(width, limit);
}

std::string rstrip(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// The grid in blocks of as many columns as fit `width`, each line whole.
std::string draw_grid(const Grid& g, int width) {
  std::string out;
  for (const std::string& line : g.heading)
    for (const std::string& part : wrap(line, width)) out += part + "\n";
  int left = widest(g.rows, kMaxRowLabel);
  int right = g.right.empty() ? 0 : widest(g.right, kMaxRightLabel) + 1;
  if (width - left - 1 - right < 2) right = 0;  // too narrow: the cells come first
  left = std::max(1, std::min(left, width - 3));
  const int ncols = static_cast<int>(g.cols.size()), nrows = static_cast<int>(g.rows.size());
  const int per_block = std::max(1, (width - left - 1 - right) / 2);
  const int lines = widest(g.cols, kMaxColumnLabel);
  std::vector<std::vector<std::string>> column_chars;
  for (const std::string& label : g.cols) column_chars.push_back(downwards(label, lines));
  for (int first = 0; first < ncols; first += per_block) {
    const int last = std::min(ncols, first + per_block);
    if (per_block < ncols)
      out += "columns " + std::to_string(first + 1) + "-" + std::to_string(last) + " of " +
             std::to_string(ncols) + "\n";
    for (int k = 0; k < lines; ++k) {
      std::string line(left + 1, ' ');
      for (int j = first; j < last; ++j)
        line += k < static_cast<int>(column_chars[j].size()) ? column_chars[j][k] : "  ";
      out += rstrip(line) + "\n";
    }
    for (int i = 0; i < nrows; ++i) {
      std::string line = pad_width(fit_width(g.rows[i], left), left, true) + " ";
      for (int j = first; j < last; ++j) line += g.cell(i, j);
      line += view::end_of_cells(g.colours);
      if (right > 0) line += " " + fit_width(g.right[i], right - 1);
      out += rstrip(line) + "\n";
    }
  }
  for (const std::string& part : wrap(g.legend, width)) out += part + "\n";
  return out;
}

// The matrices, layer and head a choice names in a sentence.
struct Chosen {
  const AttentionMatrices* m = nullptr;
  const dump_schema::AttentionType* type = nullptr;
  int layer = 0;            // into m's layers
  std::optional<int> head;  // into m's heads; unset: the average
};

std::string list_numbers(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& l : labels) text += (text.empty() ? "" : ", ") + l;
  return text;
}

// A layer's number from its label; an older dump's negative label ("-1", kept as the selection
// gave it) stands for a layer past every numbered one.
long long layer_number(const std::string& label) {
  const int number = std::stoi(label);
  return number < 0 ? (1LL << 32) + number : number;
}

// The position in m's layers of the layer `layer` names: its number, or, negative, counted from
// the model's last layer (-1 the last) as everywhere in minimt, whichever layers the dump holds.
int layer_position(const AttentionMatrices& m, int layer, const std::string& type) {
  const bool from_end = layer < 0 && m.model_layers > 0;
  const int number = from_end ? m.model_layers + layer : layer;
  const std::string label = std::to_string(number);
  auto found = std::find(m.layer_labels.begin(), m.layer_labels.end(), label);
  if (found != m.layer_labels.end()) return static_cast<int>(found - m.layer_labels.begin());
  const std::string held = " (its " + type + " layers: " + list_numbers(m.layer_labels) + ")";
  if (layer < 0 && m.model_layers == 0)
    throw Error("layer " + std::to_string(layer) +
                " counts from the model's last layer, and the dump does not say how many the "
                "model has" +
                held + ": name the layer by its number");
  if (from_end && number < 0)
    throw Error("layer " + std::to_string(layer) + " does not exist (the model has " +
                std::to_string(m.model_layers) + " " + type + " layers, -1 the last)");
  const std::string named =
      from_end ? "layer " + std::to_string(layer) + " (the model's layer " + label + ")"
               : "layer " + label;
  throw Error(named + " is not in the dump" + held);
}

Chosen choose(const DumpSentence& s, const HeatmapChoice& choice) {
  Chosen c;
  c.type = dump_schema::find_attention_type(choice.type);
  if (!c.type) throw Error("'" + choice.type + "' is not encoder, decoder or cross");
  const std::string where = "sentence " + std::to_string(s.number);
  if (!s.error.empty()) throw Error(where + " was not translated: " + s.error);
  if (s.blank()) throw Error(where + " is a blank line: no attention to draw");
  c.m = s.find(choice.type);
  if (!c.m || c.m->layers() == 0 || c.m->heads.empty())
    throw Error(where + " has no " + view::type_text(choice.type).name +
                " in the dump (it was written with a selection that leaves it out)");
  const AttentionMatrices& m = *c.m;
  if (choice.layer) {
    c.layer = layer_position(m, *choice.layer, choice.type);
  } else {  // the deepest layer the dump holds, wherever its selection listed it
    for (int l = 1; l < m.layers(); ++l)
      if (layer_number(m.layer_labels[l]) > layer_number(m.layer_labels[c.layer])) c.layer = l;
  }
  if (choice.head) {
    auto found = std::find(m.heads.begin(), m.heads.end(), *choice.head);
    if (found == m.heads.end()) {
      std::vector<std::string> heads;
      for (int h : m.heads) heads.push_back(std::to_string(h));
      throw Error("head " + std::to_string(*choice.head) +
                  " is not in the dump (its heads: " + list_numbers(heads) + ")");
    }
    c.head = static_cast<int>(found - m.heads.begin());
  }
  return c;
}

// "head 2", "head 2 (masked ...)" or "average of heads 0, 1, 3 (head 2 masked, left out)".
std::string head_text(const Chosen& c) {
  const AttentionMatrices& m = *c.m;
  if (c.head) {
    std::string text = "head " + std::to_string(m.heads[*c.head]);
    if (m.is_masked(c.layer, *c.head)) text += " (masked by --mask-heads: every weight is 0)";
    return text;
  }
  std::vector<std::string> kept, masked;
  for (int h : m.averaged_heads(c.layer)) kept.push_back(std::to_string(m.heads[h]));
  for (size_t h = 0; h < m.heads.size(); ++h)
    if (m.is_masked(c.layer, static_cast<int>(h))) masked.push_back(std::to_string(m.heads[h]));
  std::string text =
      "average of head" + std::string(kept.size() == 1 ? " " : "s ") + list_numbers(kept);
  if (masked.size() == m.heads.size())
    text += " (all masked by --mask-heads: every weight is 0)";
  else if (!masked.empty())
    text += " (" + std::string(masked.size() == 1 ? "head " : "heads ") + list_numbers(masked) +
            " masked, left out)";
  return text;
}

// The weights drawn: one head's, or the average, [rows][cols].
std::vector<float> chosen_weights(const Chosen& c) {
  const AttentionMatrices& m = *c.m;
  if (!c.head) return m.head_average(c.layer);
  std::vector<float> w;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) w.push_back(m.at(c.layer, *c.head, i, j));
  return w;
}

// An extra of the chosen matrices (the scores, weight x norm) at the chosen layer: one head's,
// or the mean over the heads the weights' average is over, [rows][cols].
std::vector<float> chosen_extra(const DumpSentence& s, const Chosen& c, const char* suffix,
                                const char* option) {
  const std::string key = dump_schema::extra_key(*c.type, suffix);
  const AttentionMatrices* x = s.find_extra(key);
  if (!x || x->layers() != c.m->layers() || x->heads != c.m->heads)
    throw Error("sentence " + std::to_string(s.number) + " has no " + key +
                " for these layers and heads in the dump (write it with " + option + ")");
  std::vector<int> heads = c.m->averaged_heads(c.layer);
  if (c.head) heads = {*c.head};
  std::vector<float> out(static_cast<size_t>(x->rows) * x->cols, 0.0f);
  for (int h : heads)
    for (int i = 0; i < x->rows; ++i)
      for (int j = 0; j < x->cols; ++j)
        out[static_cast<size_t>(i) * x->cols + j] += x->at(c.layer, h, i, j) / heads.size();
  return out;
}

// The largest magnitude of the cells not under the causal mask.
float largest(const std::vector<float>& values, int cols, bool causal) {
  float scale = 0;
  for (size_t k = 0; k < values.size(); ++k)
    if (!(causal && static_cast<int>(k % cols) > static_cast<int>(k / cols)))
      scale = std::max(scale, std::fabs(values[k]));
  return scale;
}

// The logit lens as a table: a line per decoder position (its input piece), a column per
// decoder layer in the dump, each cell that layer's most likely next piece and its probability.
std::string draw_lens(const DumpSentence& s, const TerminalStyle& style) {
  const std::string where = "sentence " + std::to_string(s.number);
  if (s.layer_predictions.empty())
    throw Error(where + " has no logit lens in the dump (write it with --logit-lens K)");
  constexpr int kCell = 16;
  std::string out;
  for (const std::string& line :
       {"Logit lens \u00b7 " + where +
            " \u00b7 each decoder layer's most likely next piece and its probability",
        "source: " + terminal_escape(s.source), "translation: " + terminal_escape(s.translation)})
    for (const std::string& part : wrap(line, style.width)) out += part + "\n";
  int left = 0;
  for (const std::string& t : s.decoder_input_tokens)
    left = std::max(left, terminal_width(terminal_escape(t)));
  left = std::min(left, kMaxRowLabel);
  std::string header = std::string(left + 1, ' ');
  for (const std::string& label : s.lens_layer_labels)
    header += pad_width("layer " + label, kCell, false) + " ";
  out += rstrip(header) + "\n";
  for (size_t t = 0; t < s.decoder_input_tokens.size(); ++t) {
    std::string line =
        pad_width(fit_width(terminal_escape(s.decoder_input_tokens[t]), left), left, true) + " ";
    for (const auto& layer : s.layer_predictions) {
      std::string cell;
      if (t < layer.size() && !layer[t].empty()) {
        char p[16];
        std::snprintf(p, sizeof p, " %.2f", layer[t][0].second);
        cell = fit_width(terminal_escape(layer[t][0].first), kCell - 5) + p;
      }
      line += pad_width(cell, kCell, false) + " ";
    }
    out += rstrip(line) + "\n";
  }
  return out;
}

// The labels and heading shared by a heatmap and a difference.
Grid grid_for(const DumpSentence& s, const Chosen& c, const std::string& what) {
  Grid g;
  const view::TypeText& text = view::type_text(c.type->type);
  g.heading.push_back(std::string(text.heading) + " \u00b7 layer " + c.m->layer_labels[c.layer] +
                      " \u00b7 " + head_text(c) + " \u00b7 sentence " + std::to_string(s.number) +
                      what);
  g.heading.push_back("source: " + terminal_escape(s.source));
  g.heading.push_back("translation: " + terminal_escape(s.translation));
  g.heading.push_back(text.axes);
  for (const std::string& t : s.tokens(c.type->rows)) g.rows.push_back(terminal_escape(t));
  for (const std::string& t : s.tokens(c.type->cols)) g.cols.push_back(terminal_escape(t));
  if (c.type->rows == dump_schema::Axis::kDecoderInput)
    for (size_t i = 0; i < s.output_tokens.size(); ++i) {
      std::string label = "\u2192 " + terminal_escape(s.output_tokens[i]);
      if (i < s.output_log_probs.size()) {
        char p[16];
        std::snprintf(p, sizeof p, " %.2f", std::exp(s.output_log_probs[i]));
        label += p;
      }
      g.right.push_back(label);
    }
  return g;
}

// The scores or weight x norm of the chosen heatmap, each map scaled to its own largest value.
std::string draw_extra(const DumpSentence& s, const Chosen& c, const HeatmapChoice& choice,
                       const TerminalStyle& style) {
  const bool scores = choice.values == HeatmapValues::kScores;
  const std::vector<float> values =
      scores ? chosen_extra(s, c, dump_schema::kScoresSuffix, "--dump-scores")
             : chosen_extra(s, c, dump_schema::kWeightedNormsSuffix, "--dump-norms");
  const int cols = c.m->cols;
  const bool causal = c.type->causal;
  const float scale = largest(values, cols, causal);
  Grid g = grid_for(s, c, scores ? " \u00b7 scores (before softmax)" : " \u00b7 weight x norm");
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
  return draw_grid(g, style.width);
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
  if (choice.values == HeatmapValues::kLens) return draw_lens(sentence, style);
  const Chosen c = choose(sentence, choice);
  if (choice.values != HeatmapValues::kWeights) return draw_extra(sentence, c, choice, style);
  Grid g = grid_for(sentence, c, "");
  const std::vector<float> w = chosen_weights(c);
  const int cols = c.m->cols;
  const bool causal = c.type->causal;
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    return view::weight_cell(w[static_cast<size_t>(i) * cols + j], colours);
  };
  g.legend = view::weight_legend(colours, causal);
  return draw_grid(g, style.width);
}

std::string draw_heatmap_difference(const DumpSentence& a, const DumpSentence& b,
                                    const HeatmapChoice& choice, const TerminalStyle& style,
                                    const std::string& a_name, const std::string& b_name) {
  const Chosen ca = choose(a, choice);
  HeatmapChoice same = choice;  // the same layer and head, by their numbers, in B
  same.layer = std::stoi(ca.m->layer_labels[ca.layer]);
  const Chosen cb = choose(b, same);
  if (cb.m->layer_labels[cb.layer] != ca.m->layer_labels[ca.layer])
    throw Error("layer " + ca.m->layer_labels[ca.layer] + " is not in " + b_name);
  const std::vector<float> wa = chosen_weights(ca), wb = chosen_weights(cb);
  std::vector<float> change(wa.size());
  float scale = 0;
  const int cols = ca.m->cols;
  const bool causal = ca.type->causal;
  for (size_t k = 0; k < wa.size(); ++k) {
    change[k] = wb[k] - wa[k];
    const bool masked = causal && static_cast<int>(k % cols) > static_cast<int>(k / cols);
    if (!masked) scale = std::max(scale, std::fabs(change[k]));
  }
  std::string what = ": B - A, B = " + terminal_escape(b_name) + ", A = " + terminal_escape(a_name);
  if (!ca.head && head_text(ca) != head_text(cb)) what += " (B: " + head_text(cb) + ")";
  Grid g = grid_for(b, ca, what);
  const TerminalColours colours = style.colours;
  g.colours = colours;
  g.cell = [&](int i, int j) {
    if (causal && j > i) return view::masked_cell(colours);
    return view::change_cell(change[static_cast<size_t>(i) * cols + j], scale, colours);
  };
  g.legend = scale > 0 ? view::change_legend(colours, scale, causal)
                       : "B - A is 0 in every cell: the two runs agree here";
  return draw_grid(g, style.width);
}

}  // namespace minimt
