// The colour scales of the SVG, read from the one definition the pages use too
// (src/app/views/page/colour_scales.json, embedded at build time by src/app/views/page/page.cmake).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace minimt::view {

using Rgb = std::array<int, 3>;

// The sequential scale of attention weights: evenly spaced stops from weight 0 to weight 1.
const std::vector<Rgb>& sequential_stops();

// The diverging scale of signed values: evenly spaced stops from 0 (white) out to the largest
// magnitude, below 0 (red) and above it (blue).
const std::vector<Rgb>& diverging_below_stops();
const std::vector<Rgb>& diverging_above_stops();

// The colour at x (0 to 1, clamped) between evenly spaced `stops`, each channel rounded to the
// nearest whole value, as the page's colour_scales.js computes it.
Rgb between(const std::vector<Rgb>& stops, double x);

// The colour of weight w on the sequential scale; of a signed value over `scale` (the largest
// magnitude shown; white for 0 and when scale is not positive) on the diverging one.
Rgb sequential_colour(double w);
Rgb diverging_colour(double value, double scale);

// The hatching of masked cells: a square tile of `tile` pixels filled with `fill`, with
// `lines` (x0, y0, x1, y1) drawn in `stroke`, `stroke_width` pixels wide.
struct MaskHatching {
  int tile = 0;
  std::string fill, stroke;
  double stroke_width = 0;
  std::vector<std::array<int, 4>> lines;
};
const MaskHatching& mask_hatching();

}  // namespace minimt::view
