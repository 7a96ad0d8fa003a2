#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "app/colour_scales.h"
#include "app/view_text.h"
#include "minimt/app/attention_view.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

// The colour of a weight on the sequential scale (colour_scales.json, as the page draws it).
std::string shade(float weight) {
  const view::Rgb c = view::sequential_colour(weight);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c[0], c[1], c[2]);
  return text;
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

// The axes of one type of one sentence and its matrices.
struct Figure {
  const DumpSentence& sentence;
  const AttentionMatrices& m;
  const std::vector<std::string>& rows;
  const std::vector<std::string>& cols;
  const std::vector<std::string>* right;  // the pieces predicted, right of decoder rows
  bool causal;
};

Layout layout_of(const Figure& f) {
  Layout at;
  auto widest = [&](const std::vector<std::string>& labels, const char* prefix) {
    double w = 0;
    for (const std::string& l : labels) w = std::max(w, text_width(prefix + l, at.font));
    return std::min(w, 140.0);
  };
  at.left = widest(f.rows, "") + 6;
  at.top = widest(f.cols, "") + 6;
  const double right_width = f.right ? widest(*f.right, "\u2192 ") + 8 : 0;
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

// The <svg> element's opening, the shared patterns, the title and the colour scale.
void write_header(std::ostream& out, const Figure& f, const Layout& at, const char* heading) {
  const double width = 10 + f.m.heads.size() * (at.map_w + at.gap),
               height = at.header + f.m.layers() * (at.map_h + at.gap);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width) << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << number(width) << ' ' << number(height)
      << "\" font-family=\"DejaVu Sans, Segoe UI, Helvetica, Arial, sans-serif\" font-size=\""
      << number(at.font) << "\">\n<defs>" << mask_pattern() << "<linearGradient id=\"scale\">";
  const int last = static_cast<int>(view::sequential_stops().size()) - 1;
  for (int i = 0; i <= last; ++i)
    out << "<stop offset=\"" << number(i / static_cast<double>(last)) << "\" stop-color=\""
        << shade(i / static_cast<float>(last)) << "\"/>";
  out << "</linearGradient></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << heading
      << " &#8212; sentence " << f.sentence.number
      << "</text>\n<text x=\"10\" y=\"34\" fill=\"#5b6472\">"
      << view::html_escape(f.sentence.source) << " &#8594; "
      << view::html_escape(f.sentence.translation) << "</text>\n"
      << "<rect x=\"10\" y=\"42\" width=\"160\" height=\"10\" fill=\"url(#scale)\" "
         "stroke=\"#9aa1ab\"/>"
      << "<text x=\"10\" y=\"62\" font-size=\"9\">0</text><text x=\"170\" y=\"62\" font-size=\"9\" "
      << "text-anchor=\"end\">1</text>";
  if (f.causal)
    out << "<rect x=\"190\" y=\"42\" width=\"20\" height=\"10\" fill=\"url(#mask)\" "
           "stroke=\"#9aa1ab\"/>"
        << "<text x=\"216\" y=\"51\" font-size=\"9\">masked (future position)</text>";
  out << '\n';
}

// The cells of one heatmap whose grid starts at (gx, gy), and the mask over a causal one.
void write_cells(std::ostream& out, const Figure& f, int l, int h, double gx, double gy,
                 double cell) {
  const AttentionMatrices& m = f.m;
  // One path per colour, of 12x12 squares: the weights in steps of 1/200 (the colour scale
  // cannot show finer ones), a third of the size of one <rect> per cell.
  std::map<int, std::string> squares;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) {
      if (f.causal && j > i) continue;
      float w = std::min(1.0f, std::max(0.0f, m.at(l, h, i, j)));
      squares[static_cast<int>(std::lround(w * 200))] +=
          "M" + number(gx + j * cell) + ' ' + number(gy + i * cell) + "h12v12h-12z";
    }
  for (const auto& [level, d] : squares)
    out << "<path fill=\"" << shade(level / 200.0f) << "\" d=\"" << d << "\"/>";
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
      << " &#183; head " << m.heads[h] << "</text>\n";
  const double gx = at.left, gy = at.caption + at.top;
  write_cells(out, f, l, static_cast<int>(h), gx, gy, cell);
  out << "<rect x=\"" << number(gx - 0.5) << "\" y=\"" << number(gy - 0.5) << "\" width=\""
      << number(m.cols * cell + 1) << "\" height=\"" << number(m.rows * cell + 1)
      << "\" fill=\"none\" stroke=\"#9aa1ab\"/>\n";
  for (int i = 0; i < m.rows; ++i) {
    out << "<text x=\"" << number(gx - 4) << "\" y=\"" << number(gy + i * cell + cell / 2 + 3.5)
        << "\" text-anchor=\"end\">" << view::html_escape(f.rows[i]) << "</text>";
    if (f.right)
      out << "<text x=\"" << number(gx + m.cols * cell + 4) << "\" y=\""
          << number(gy + i * cell + cell / 2 + 3.5) << "\" fill=\"#7a5a00\">&#8594; "
          << view::html_escape((*f.right)[i]) << "</text>";
  }
  for (int j = 0; j < m.cols; ++j)
    out << "<text transform=\"translate(" << number(gx + j * cell + cell / 2 + 3.5) << ','
        << number(gy - 4) << ") rotate(-90)\">" << view::html_escape(f.cols[j]) << "</text>";
  out << "</g>\n";
}

}  // namespace

void write_attention_svg(const DumpSentence& sentence, const std::string& type, std::ostream& out) {
  const view::TypeText& text = view::type_text(type);
  const dump_schema::AttentionType& axes = *dump_schema::find_attention_type(type);
  const AttentionMatrices* m = sentence.find(type);
  if (!m || m->layers() == 0 || m->heads.empty())
    throw Error("sentence " + std::to_string(sentence.number) + " has no " + text.heading +
                " in the dump");
  // Rows of decoder inputs show, on the right, the piece each one predicted.
  const bool predicted = axes.rows == dump_schema::Axis::kDecoderInput;
  const Figure f{sentence,
                 *m,
                 sentence.tokens(axes.rows),
                 sentence.tokens(axes.cols),
                 predicted ? &sentence.output_tokens : nullptr,
                 axes.causal};
  const Layout at = layout_of(f);
  write_header(out, f, at, text.heading);
  for (int l = 0; l < m->layers(); ++l)
    for (size_t h = 0; h < m->heads.size(); ++h) write_heatmap(out, f, at, l, h);
  out << "</svg>\n";
}

}  // namespace minimt
