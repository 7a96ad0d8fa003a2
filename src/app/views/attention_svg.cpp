// The static SVGs of `minimt view --svg`: one attention type of one sentence, or of two runs'
// difference (B - A), as a grid of heatmaps with the colours of colour_scales.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "app/views/colour_scales.h"
#include "app/views/output_column.h"
#include "app/views/view_numbers.h"
#include "app/views/view_text.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

std::string four_decimals(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", x);
  return text;
}

std::string hex(const view::Rgb& c) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c[0], c[1], c[2]);
  return text;
}

// The colour of a weight on the sequential scale (colour_scales.json, as the page draws it).
std::string shade(float weight) {
  return hex(view::sequential_colour(weight));
}

// Width estimate of a label: SVG has no text measurement. ~0.62 em per character.
double text_width(const std::string& text, double font) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return chars * font * 0.62;
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  std::string s = text;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// Sizes of one heatmap, the same for every layer and head of a type.
struct Layout {
  double cell = 12, font = 10, gap = 18, caption = 16, header = 64;
  double left = 0, top = 0;  // row and column labels
  double map_w = 0, map_h = 0;
};

// The axes of one type of one sentence and the matrices drawn.
struct Figure {
  const DumpSentence& sentence;
  const AttentionMatrices& m;
  const std::vector<std::string>& rows;
  const std::vector<std::string>& cols;
  // Right of decoder rows: the pieces predicted, with their probabilities when the dump has them.
  std::vector<std::string> right;
  std::vector<std::string> right_titles;  // per row, its hover text ("" for none)
  std::string right_heading;              // above them: predicted or given (output_column.h)
  bool causal;
  std::vector<std::string> head_notes;  // [layer][head]: " (ablated)" or ""
  float scale = 0;                      // > 0: signed values (B - A) on the diverging scale
  std::string runs;                     // what B and A are, for a difference
};

// A value's colour step: weights 0 to 1 in steps of 1/200 (the colour scale cannot show finer
// ones), signed values from -scale to scale in steps of scale/200.
int colour_level(const Figure& f, float value) {
  if (f.scale > 0)
    return static_cast<int>(std::lround(std::clamp(value / f.scale, -1.0f, 1.0f) * 200));
  return static_cast<int>(std::lround(std::clamp(value, 0.0f, 1.0f) * 200));
}

std::string level_colour(const Figure& f, int level) {
  return f.scale > 0 ? hex(view::diverging_colour(level / 200.0, 1)) : shade(level / 200.0f);
}

// "→ ▁chat 0.94" right of each decoder row, as the page labels it (2 decimals), and the
// probability to 4 decimals and the dumped log-probability as its hover text; the pieces alone
// without log-probabilities. With a second run's (`other`, A of a difference): "→ ▁chat A 0.94
// B 0.41", "p(▁chat): A 0.9412, B 0.4105"; the pieces alone unless both runs have them. A
// probability that is not 0 never prints as 0 (view_numbers.h).
void label_predictions(Figure& f, const std::vector<std::string>& pieces,
                       const std::vector<float>& log_probs,
                       const std::vector<float>* other = nullptr) {
  const bool two = other && other->size() == log_probs.size();
  const bool any = !other || two;  // a difference shows both runs' or neither
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string label = "\u2192 " + pieces[i], title;
    if (any && i < log_probs.size()) {
      const double p = std::exp(static_cast<double>(log_probs[i]));
      const double q = two ? std::exp(static_cast<double>((*other)[i])) : 0;
      if (two) {
        label += " A " + view::fixed_nonzero(q, 2) + " B " + view::fixed_nonzero(p, 2);
        title = "p(" + pieces[i] + "): A " + view::fixed_nonzero(q, 4) + ", B " +
                view::fixed_nonzero(p, 4);
      } else {
        label += " " + view::fixed_nonzero(p, 2);
        title = "p(" + pieces[i] + ") = " + view::fixed_nonzero(p, 4) + " (log-probability " +
                view::float_text(log_probs[i]) + ")";
      }
    }
    f.right.push_back(label);
    f.right_titles.push_back(title);
  }
}

// For one run: each given piece (score's target, a prefix) said so, and where the model's own
// most likely piece differs, that piece and its probability ("→ ▁une 0.0012 · model: ▁étudiant
// 0.84").
void label_given(Figure& f, const DumpSentence& s) {
  for (size_t i = 0; i < f.right.size(); ++i) {
    if (!view::output_given(s, i)) continue;
    std::string& title = f.right_titles[i];
    title = "given " + (title.empty() ? s.output_tokens[i] : title);
    if (const auto* best = view::model_choice(s, i)) {
      f.right[i] += " \u00b7 model: " + best->first + " " + view::fixed_nonzero(best->second, 2);
      title +=
          "; the model's most likely: " + best->first + " " + view::fixed_nonzero(best->second, 4);
    }
  }
}

Layout layout_of(const Figure& f) {
  Layout at;
  auto widest = [&](const std::vector<std::string>& labels, const char* prefix) {
    double w = 0;
    for (const std::string& l : labels) w = std::max(w, text_width(prefix + l, at.font));
    return std::min(w, 140.0);
  };
  at.left = widest(f.rows, "") + 6;
  at.top = widest(f.cols, "") + 6;
  const double right_width =
      f.right.empty() ? 0 : std::max(widest(f.right, ""), widest({f.right_heading}, "")) + 8;
  at.map_w = at.left + f.m.cols * at.cell + right_width;
  at.map_h = at.caption + at.top + f.m.rows * at.cell;
  return at;
}

// The hatching of masked cells (colour_scales.json) as the pattern "mask".
std::string mask_pattern() {
  const view::MaskHatching& mask = view::mask_hatching();
  const std::string tile = std::to_string(mask.tile);
  std::string lines;
  for (const auto& l : mask.lines)
    lines += (lines.empty() ? "M" : " M") + std::to_string(l[0]) + ',' + std::to_string(l[1]) +
             " L" + std::to_string(l[2]) + ',' + std::to_string(l[3]);
  return "<pattern id=\"mask\" width=\"" + tile + "\" height=\"" + tile +
         "\" patternUnits=\"userSpaceOnUse\"><rect width=\"" + tile + "\" height=\"" + tile +
         "\" fill=\"" + mask.fill + "\"/><path d=\"" + lines + "\" stroke=\"" + mask.stroke +
         "\" stroke-width=\"" + number(mask.stroke_width) + "\"/></pattern>";
}

// The gradient "scale" of the legend: the sequential scale, or the diverging one from -1 to 1.
std::string scale_gradient(const Figure& f) {
  std::string out = "<linearGradient id=\"scale\">";
  // A stop at each of the scale's own stops, so the gradient is the scale.
  const int last = static_cast<int>(f.scale > 0 ? 2 * (view::diverging_below_stops().size() - 1)
                                                : view::sequential_stops().size() - 1);
  for (int i = 0; i <= last; ++i) {
    const double x = i / static_cast<double>(last);
    const std::string colour =
        f.scale > 0 ? hex(view::diverging_colour(2 * x - 1, 1)) : shade(static_cast<float>(x));
    out += "<stop offset=\"" + number(x) + "\" stop-color=\"" + colour + "\"/>";
  }
  return out + "</linearGradient>";
}

// The <svg> element's opening, the shared patterns, the title and the colour scale.
void write_header(std::ostream& out, const Figure& f, const Layout& at, const char* heading) {
  const double bar = f.scale > 0 ? 240 : 160;  // the legend's width
  const double width = std::max(bar + 200, 10 + f.m.heads.size() * (at.map_w + at.gap)),
               height = at.header + f.m.layers() * (at.map_h + at.gap);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width) << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << number(width) << ' ' << number(height)
      << "\" font-family=\"DejaVu Sans, Segoe UI, Helvetica, Arial, sans-serif\" font-size=\""
      << number(at.font) << "\">\n<defs>" << mask_pattern() << scale_gradient(f)
      << "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << heading
      << (f.scale > 0 ? ", B &#8722; A" : "") << " &#8212; sentence " << f.sentence.number
      << "</text>\n<text x=\"10\" y=\"34\" fill=\"#5b6472\">"
      << view::html_escape(f.sentence.source) << " &#8594; "
      << view::html_escape(f.sentence.translation)
      << (f.runs.empty() ? "" : " &#183; " + view::html_escape(f.runs)) << "</text>\n"
      << "<rect x=\"10\" y=\"42\" width=\"" << number(bar) << "\" height=\"10\" "
      << "fill=\"url(#scale)\" stroke=\"#9aa1ab\"/>";
  const std::string end = number(10 + bar), middle = number(10 + bar / 2);
  if (f.scale > 0)  // red where A is higher, blue where B is
    out << "<text x=\"10\" y=\"62\" font-size=\"9\">&#8722;" << four_decimals(f.scale)
        << " A higher</text><text x=\"" << middle << "\" y=\"62\" font-size=\"9\" "
        << "text-anchor=\"middle\">0</text><text x=\"" << end << "\" y=\"62\" font-size=\"9\" "
        << "text-anchor=\"end\">B higher +" << four_decimals(f.scale) << "</text>";
  else
    out << "<text x=\"10\" y=\"62\" font-size=\"9\">0</text><text x=\"" << end
        << "\" y=\"62\" font-size=\"9\" text-anchor=\"end\">1</text>";
  if (f.causal)
    out << "<rect x=\"" << number(bar + 30) << "\" y=\"42\" width=\"20\" height=\"10\" "
        << "fill=\"url(#mask)\" stroke=\"#9aa1ab\"/><text x=\"" << number(bar + 56)
        << "\" y=\"51\" font-size=\"9\">masked (future position)</text>";
  out << '\n';
}

// The cells of one heatmap whose grid starts at (gx, gy), and the mask over a causal one.
void write_cells(std::ostream& out, const Figure& f, int l, int h, double gx, double gy,
                 double cell) {
  const AttentionMatrices& m = f.m;
  // One path per colour step (colour_level) of 12x12 squares, a third of the size of one <rect>
  // per cell.
  std::map<int, std::string> squares;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) {
      if (f.causal && j > i) continue;
      squares[colour_level(f, m.at(l, h, i, j))] +=
          "M" + number(gx + j * cell) + ' ' + number(gy + i * cell) + "h12v12h-12z";
    }
  for (const auto& [level, d] : squares)
    out << "<path fill=\"" << level_colour(f, level) << "\" d=\"" << d << "\"/>";
  if (f.causal) {  // the causal mask: a staircase above the diagonal
    out << "<path fill=\"url(#mask)\" d=\"M" << number(gx + cell) << ',' << number(gy);
    out << " H" << number(gx + m.cols * cell) << " V"
        << number(gy + std::min(m.rows, m.cols - 1) * cell);
    for (int i = std::min(m.rows, m.cols - 1) - 1; i >= 0; --i)
      out << " H" << number(gx + (i + 1) * cell) << " V" << number(gy + i * cell);
    out << " Z\"/>";
  }
}

// One heatmap (layer l, head h) with its caption, frame and token labels.
void write_heatmap(std::ostream& out, const Figure& f, const Layout& at, int l, size_t h) {
  const AttentionMatrices& m = f.m;
  const double cell = at.cell;
  const double x0 = 10 + h * (at.map_w + at.gap), y0 = at.header + l * (at.map_h + at.gap);
  out << "<g transform=\"translate(" << number(x0) << ',' << number(y0) << ")\">"
      << "<text y=\"11\" fill=\"#5b6472\">layer " << view::html_escape(m.layer_labels[l])
      << " &#183; head " << m.heads[h]
      << view::html_escape(f.head_notes[static_cast<size_t>(l) * m.heads.size() + h])
      << "</text>\n";
  const double gx = at.left, gy = at.caption + at.top;
  write_cells(out, f, l, static_cast<int>(h), gx, gy, cell);
  out << "<rect x=\"" << number(gx - 0.5) << "\" y=\"" << number(gy - 0.5) << "\" width=\""
      << number(m.cols * cell + 1) << "\" height=\"" << number(m.rows * cell + 1)
      << "\" fill=\"none\" stroke=\"#9aa1ab\"/>\n";
  if (!f.right.empty())  // what the pieces on the right are: predicted or given
    out << "<text x=\"" << number(gx + m.cols * cell + 4) << "\" y=\"" << number(gy - 4)
        << "\" fill=\"#7a5a00\" font-style=\"italic\" class=\"output-column\">" << f.right_heading
        << "</text>";
  for (int i = 0; i < m.rows; ++i) {
    out << "<text x=\"" << number(gx - 4) << "\" y=\"" << number(gy + i * cell + cell / 2 + 3.5)
        << "\" text-anchor=\"end\">" << view::html_escape(f.rows[i]) << "</text>";
    if (static_cast<size_t>(i) < f.right.size()) {
      out << "<text x=\"" << number(gx + m.cols * cell + 4) << "\" y=\""
          << number(gy + i * cell + cell / 2 + 3.5) << "\" fill=\"#7a5a00\">"
          << view::html_escape(f.right[i]);
      if (!f.right_titles[i].empty())
        out << "<title>" << view::html_escape(f.right_titles[i]) << "</title>";
      out << "</text>";
    }
  }
  for (int j = 0; j < m.cols; ++j)
    out << "<text transform=\"translate(" << number(gx + j * cell + cell / 2 + 3.5) << ','
        << number(gy - 4) << ") rotate(-90)\">" << view::html_escape(f.cols[j]) << "</text>";
  out << "</g>\n";
}

// Each head's note in its caption: where --ablate-heads switched it off (ablated: its weights
// set to 0 after the softmax; "masked" is the causal mask's word).
std::vector<std::string> ablated_notes(const AttentionMatrices* a, const AttentionMatrices& b) {
  std::vector<std::string> notes;
  for (int l = 0; l < b.layers(); ++l)
    for (size_t h = 0; h < b.heads.size(); ++h) {
      const bool in_b = b.is_masked(l, static_cast<int>(h));
      const bool in_a = a && a->is_masked(l, static_cast<int>(h));
      if (!a)
        notes.push_back(in_b ? " (ablated)" : "");
      else
        notes.push_back(in_a && in_b ? " (ablated in A and B)"
                        : in_a       ? " (ablated in A)"
                        : in_b       ? " (ablated in B)"
                                     : "");
    }
  return notes;
}

void write_figure(std::ostream& out, const Figure& f, const char* heading) {
  const Layout at = layout_of(f);
  write_header(out, f, at, heading);
  for (int l = 0; l < f.m.layers(); ++l)
    for (size_t h = 0; h < f.m.heads.size(); ++h) write_heatmap(out, f, at, l, h);
  out << "</svg>\n";
}

}  // namespace

void write_attention_svg(const DumpSentence& sentence, const std::string& type, std::ostream& out) {
  const view::TypeText& text = view::type_text(type);
  const dump_schema::AttentionType& axes = *dump_schema::find_attention_type(type);
  const AttentionMatrices* m = sentence.find(type);
  if (!m || m->layers() == 0 || m->heads.empty())
    throw Error("sentence " + std::to_string(sentence.number) + " has no " + text.heading +
                " in the dump");
  Figure f{sentence,
           *m,
           sentence.tokens(axes.rows),
           sentence.tokens(axes.cols),
           {},
           {},
           "",
           axes.causal,
           {},
           0,
           ""};
  // Rows of decoder inputs show, on the right, the piece each one predicted and how surely.
  if (axes.rows == dump_schema::Axis::kDecoderInput) {
    label_predictions(f, sentence.output_tokens, sentence.output_log_probs);
    label_given(f, sentence);
    f.right_heading = view::output_column_name(sentence);
  }
  f.head_notes = ablated_notes(nullptr, *m);
  write_figure(out, f, text.heading);
}

void write_difference_svg(const DumpSentence& a, const DumpSentence& b, const std::string& type,
                          const std::string& a_name, const std::string& b_name, float scale,
                          std::ostream& out) {
  const view::TypeText& text = view::type_text(type);
  const dump_schema::AttentionType& axes = *dump_schema::find_attention_type(type);
  const AttentionMatrices* ma = a.find(type);
  const AttentionMatrices* mb = b.find(type);
  if (!ma || !mb)
    throw Error("sentence " + std::to_string(b.number) + " has no " + text.heading + " in " +
                (ma ? b_name : a_name));
  const MatricesDifference d = matrices_difference(*ma, *mb);
  if (d.change.layers() == 0)
    throw Error("sentence " + std::to_string(b.number) + ": " + a_name + " and " + b_name +
                " share no head of " + text.heading);
  Figure f{b, d.change, b.tokens(axes.rows), b.tokens(axes.cols), {}, {}, "", axes.causal, {},
           0, ""};
  if (axes.rows == dump_schema::Axis::kDecoderInput) {
    label_predictions(f, b.output_tokens, b.output_log_probs, &a.output_log_probs);
    f.right_heading = view::output_column_name(b);
  }
  f.head_notes = ablated_notes(&d.a, d.b);
  // A scale of 0 (the runs agree): every cell white, the legend still from -1 to 1.
  f.scale = scale > 0 ? scale : 1;
  f.runs = "B = " + b_name + ", A = " + a_name;
  write_figure(out, f, text.heading);
}

}  // namespace minimt
