// The cells of the terminal heatmaps (terminal_heatmap.h), two columns each, painted as the
// terminal allows: ASCII characters, Unicode shades, or a background from the colour scales of
// colour_scales.json (24-bit, or the nearest of xterm's 256 colours).
#pragma once

#include <string>

#include "app/views/colour_scales.h"
#include "minimt/app/views/terminal_heatmap.h"

namespace minimt::view {

// The xterm 256-colour index nearest to `rgb`: of the 6x6x6 cube (16-231) or the grey ramp
// (232-255), by squared distance.
int xterm_256(const Rgb& rgb);

// A weight in [0, 1] on the sequential scale.
std::string weight_cell(float weight, TerminalColours colours);
// A signed change over `scale` (the largest magnitude shown) on the diverging scale; in plain
// and shading modes its sign and a digit from 1 to 9 (blank when it rounds to 0).
std::string change_cell(float change, float scale, TerminalColours colours);
// A cell that is not a weight: the causal mask.
std::string masked_cell(TerminalColours colours);
// What ends a line of cells: "" or the escape sequence that resets the colours.
const char* end_of_cells(TerminalColours colours);

// One line saying what the cells mean (the scale from 0 to 1, and the mask when `causal`).
std::string weight_legend(TerminalColours colours, bool causal);
// One line saying what the change cells mean, B - A from -scale to +scale; `name` says of what
// ("score B - A"; the weights': "B - A").
std::string change_legend(TerminalColours colours, float scale, bool causal,
                          const std::string& name = "B - A");
// The same for signed values called `name` (the scores), from -scale to +scale.
std::string signed_legend(TerminalColours colours, float scale, bool causal,
                          const std::string& name);
// One line for values from 0 to `scale` on the sequential scale (weight x norm).
std::string magnitude_legend(TerminalColours colours, float scale, bool causal,
                             const std::string& name);

}  // namespace minimt::view
