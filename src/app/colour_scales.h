// The colour scales of the SVG, read from the one definition the pages use too
// (src/app/view/colour_scales.json, embedded at build time by src/app/view/page.cmake).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace minimt::view {

using Rgb = std::array<int, 3>;

// The sequential scale of attention weights: evenly spaced stops from weight 0 to weight 1.
const std::vector<Rgb>& sequential_stops();

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
