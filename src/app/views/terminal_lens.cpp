#include "app/views/terminal_lens.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/views/terminal_grid.h"
#include "app/views/terminal_text.h"
#include "app/views/view_text.h"
#include "minimt/base/error.h"

namespace minimt::view {
namespace {

using Predictions = std::vector<std::pair<std::string, float>>;

constexpr int kCell = 16;            // columns of a cell of one run's lens
constexpr int kDifferenceCell = 21;  // of two runs': piece (9), mark, B's probability, B - A
constexpr int kPiece = 9;

std::string lens_number(const char* format, double x) {
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

// The widest decoder input piece, at most kMaxRowLabel columns.
int row_label_width(const DumpSentence& s) {
  int left = 0;
  for (const std::string& t : s.decoder_input_tokens)
    left = std::max(left, terminal_width(terminal_escape(t)));
  return std::min(left, kMaxRowLabel);
}

std::string row_label(const DumpSentence& s, size_t t, int left) {
  return pad_width(fit_width(terminal_escape(s.decoder_input_tokens[t]), left), left, true) + " ";
}

std::string lens_heading(const std::vector<std::string>& lines, int width) {
  std::string out;
  for (const std::string& line : lines)
    for (const std::string& part : wrap(line, width)) out += part + "\n";
  return out;
}

// One cell of two runs: B's most likely piece at this position, its probability in B and B - A.
std::string difference_cell(const Predictions& a, const Predictions& b) {
  if (b.empty()) return "";
  const std::string& piece = b[0].first;
  const bool other = !a.empty() && a[0].first != piece;
  std::string cell = pad_width(fit_width(terminal_escape(piece), kPiece), kPiece, false) +
                     (other ? "*" : " ") + " " + lens_number("%.2f", b[0].second) + " ";
  auto in_a = std::find_if(a.begin(), a.end(), [&](const auto& x) { return x.first == piece; });
  cell +=
      in_a == a.end() ? pad_width("?", 5, true) : lens_number("%+.2f", b[0].second - in_a->second);
  return cell;
}

}  // namespace

std::string draw_lens(const DumpSentence& s, const TerminalStyle& style) {
  const std::string where = "sentence " + std::to_string(s.number);
  if (s.layer_predictions.empty())
    throw Error(where + " has no logit lens in the dump (write it with --logit-lens K)");
  std::string out = lens_heading(
      {"Logit lens \u00b7 " + where +
           " \u00b7 each decoder layer's most likely next piece and its "
           "probability",
       "source: " + terminal_escape(s.source), "translation: " + terminal_escape(s.translation)},
      style.width);
  const int left = row_label_width(s);
  std::string header = std::string(left + 1, ' ');
  for (const std::string& label : s.lens_layer_labels)
    header += pad_width("layer " + label, kCell, false) + " ";
  out += rstrip(header) + "\n";
  for (size_t t = 0; t < s.decoder_input_tokens.size(); ++t) {
    std::string line = row_label(s, t, left);
    for (const auto& layer : s.layer_predictions) {
      std::string cell;
      if (t < layer.size() && !layer[t].empty())
        cell = fit_width(terminal_escape(layer[t][0].first), kCell - 5) +
               lens_number(" %.2f", layer[t][0].second);
      line += pad_width(cell, kCell, false) + " ";
    }
    out += rstrip(line) + "\n";
  }
  return out;
}

std::string draw_lens_difference(const DumpSentence& a, const DumpSentence& b,
                                 const TerminalStyle& style, const std::string& a_name,
                                 const std::string& b_name) {
  const std::string where = "sentence " + std::to_string(b.number);
  for (const auto* run : {&a, &b})
    if (run->layer_predictions.empty())
      throw Error(where + " has no logit lens in " + (run == &a ? a_name : b_name) +
                  " (write it with --logit-lens K)");
  std::vector<std::pair<size_t, size_t>> layers;  // positions in a and in b
  for (size_t la = 0; la < a.lens_layer_labels.size(); ++la) {
    const auto& labels = b.lens_layer_labels;
    const auto lb = std::find(labels.begin(), labels.end(), a.lens_layer_labels[la]);
    if (lb != labels.end()) layers.emplace_back(la, lb - labels.begin());
  }
  if (layers.empty())
    throw Error(where + ": the logit lenses of " + a_name + " and " + b_name +
                " share no decoder layer");
  std::string out = lens_heading(
      {"Logit lens \u00b7 " + where + ": B - A, B = " + terminal_escape(b_name) +
           ", A = " + terminal_escape(a_name),
       "source: " + terminal_escape(b.source), "translation: " + terminal_escape(b.translation),
       "each cell: the piece B's layer would predict next, B's probability of it and B - A (A's "
       "probability of it read from the pieces A's dump kept; ? when they do not hold it); * "
       "where A's layer would predict another piece"},
      style.width);
  const int left = row_label_width(b);
  const int count = static_cast<int>(layers.size());
  const int per_block = std::max(1, (style.width - left - 1) / (kDifferenceCell + 1));
  const Predictions none;
  auto at = [&none](const DumpSentence& s, size_t layer, size_t t) -> const Predictions& {
    return t < s.layer_predictions[layer].size() ? s.layer_predictions[layer][t] : none;
  };
  for (int first = 0; first < count; first += per_block) {
    const int last = std::min(count, first + per_block);
    if (per_block < count)
      out += "layers " + std::to_string(first + 1) + "-" + std::to_string(last) + " of " +
             std::to_string(count) + "\n";
    std::string header = std::string(left + 1, ' ');
    for (int l = first; l < last; ++l)
      header +=
          pad_width("layer " + a.lens_layer_labels[layers[l].first], kDifferenceCell, false) + " ";
    out += rstrip(header) + "\n";
    for (size_t t = 0; t < b.decoder_input_tokens.size(); ++t) {
      std::string line = row_label(b, t, left);
      for (int l = first; l < last; ++l)
        line += pad_width(difference_cell(at(a, layers[l].first, t), at(b, layers[l].second, t)),
                          kDifferenceCell, false) +
                " ";
      out += rstrip(line) + "\n";
    }
  }
  return out;
}

}  // namespace minimt::view
