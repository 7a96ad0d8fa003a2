#include "app/views/terminal_cells.h"

#include <cmath>
#include <cstdio>

namespace minimt::view {
namespace {

constexpr char kAsciiRamp[] = " .:-=+*#%@";                                   // 10 levels
const char* const kShades[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};  // 5 levels
constexpr int kCubeLevels[] = {0, 95, 135, 175, 215, 255};                    // xterm's cube

int squared_distance(const Rgb& a, const Rgb& b) {
  int d = 0;
  for (int k = 0; k < 3; ++k) d += (a[k] - b[k]) * (a[k] - b[k]);
  return d;
}

// The nearest cube level's index for one channel.
int cube_index(int value) {
  int best = 0;
  for (int i = 1; i < 6; ++i)
    if (std::abs(kCubeLevels[i] - value) < std::abs(kCubeLevels[best] - value)) best = i;
  return best;
}

// Two spaces on the background `rgb`.
std::string background(const Rgb& rgb, TerminalColours colours) {
  char text[48];
  if (colours == TerminalColours::kTrueColour)
    std::snprintf(text, sizeof text, "\x1b[48;2;%d;%d;%dm  ", rgb[0], rgb[1], rgb[2]);
  else
    std::snprintf(text, sizeof text, "\x1b[48;5;%dm  ", xterm_256(rgb));
  return text;
}

bool coloured(TerminalColours colours) {
  return colours == TerminalColours::k256 || colours == TerminalColours::kTrueColour;
}

// The level of x in [0, 1] among `levels` evenly spaced ones, rounded.
int level(double x, int levels) {
  if (!(x > 0)) return 0;
  return static_cast<int>(std::lround(std::min(1.0, x) * (levels - 1)));
}

Rgb hex_colour(const std::string& hex) {
  Rgb rgb{0, 0, 0};
  if (hex.size() == 7)
    for (int k = 0; k < 3; ++k) rgb[k] = std::stoi(hex.substr(1 + 2 * k, 2), nullptr, 16);
  return rgb;
}

}  // namespace

int xterm_256(const Rgb& rgb) {
  const int r = cube_index(rgb[0]), g = cube_index(rgb[1]), b = cube_index(rgb[2]);
  const Rgb cube{kCubeLevels[r], kCubeLevels[g], kCubeLevels[b]};
  int best = 16 + 36 * r + 6 * g + b, distance = squared_distance(cube, rgb);
  for (int step = 0; step < 24; ++step) {  // the grey ramp: 8, 18, ..., 238
    const int value = 8 + 10 * step;
    const int d = squared_distance({value, value, value}, rgb);
    if (d < distance) {
      best = 232 + step;
      distance = d;
    }
  }
  return best;
}

std::string weight_cell(float weight, TerminalColours colours) {
  switch (colours) {
    case TerminalColours::kPlain:
      return std::string(2, kAsciiRamp[level(weight, 10)]);
    case TerminalColours::kShading: {
      const char* shade = kShades[level(weight, 5)];
      return std::string(shade) + shade;
    }
    default:
      return background(sequential_colour(weight), colours);
  }
}

std::string change_cell(float change, float scale, TerminalColours colours) {
  if (coloured(colours)) return background(diverging_colour(change, scale), colours);
  const int digit = scale > 0 ? level(std::fabs(change) / scale, 10) : 0;
  if (digit == 0) return "  ";
  return std::string(1, change < 0 ? '-' : '+') + static_cast<char>('0' + digit);
}

std::string masked_cell(TerminalColours colours) {
  if (colours == TerminalColours::kPlain) return "//";
  if (!coloured(colours)) return "\u2571\u2571";
  const MaskHatching& mask = mask_hatching();
  const Rgb fill = hex_colour(mask.fill), stroke = hex_colour(mask.stroke);
  char text[64];
  if (colours == TerminalColours::kTrueColour)
    std::snprintf(text, sizeof text, "\x1b[48;2;%d;%d;%d;38;2;%d;%d;%dm", fill[0], fill[1], fill[2],
                  stroke[0], stroke[1], stroke[2]);
  else
    std::snprintf(text, sizeof text, "\x1b[48;5;%d;38;5;%dm", xterm_256(fill), xterm_256(stroke));
  return std::string(text) + "\u2571\u2571\x1b[0m";
}

const char* end_of_cells(TerminalColours colours) {
  return coloured(colours) ? "\x1b[0m" : "";
}

std::string weight_legend(TerminalColours colours, bool causal) {
  std::string line = "weight 0 ";
  const int steps = colours == TerminalColours::kShading ? 5 : 10;
  for (int k = 0; k < steps; ++k) line += weight_cell(k / static_cast<float>(steps - 1), colours);
  line += end_of_cells(colours);
  line += " 1";
  if (colours == TerminalColours::kPlain) line += " (\"  \" below 0.06, \"@@\" from 0.94)";
  if (causal) line += "   " + masked_cell(colours) + " masked: a future position, not a weight";
  return line;
}

namespace {

// "NAME  -S [the diverging cells] +S (MEANING)", with the mask's cell when `causal`.
std::string diverging_legend(TerminalColours colours, float scale, bool causal,
                             const std::string& name, const std::string& colour_meaning,
                             const std::string& plain_meaning) {
  char number[32];
  std::snprintf(number, sizeof number, "%.4f", scale);
  std::string line = name + "  -" + std::string(number) + " ";
  for (int k = -9; k <= 9; k += 2) line += change_cell(scale * k / 9.0f, scale, colours);
  line += end_of_cells(colours);
  line += " +" + std::string(number);
  line += " (" + (coloured(colours) ? colour_meaning : plain_meaning) + ")";
  if (causal) line += "   " + masked_cell(colours) + " masked";
  return line;
}

}  // namespace

std::string change_legend(TerminalColours colours, float scale, bool causal,
                          const std::string& name) {
  return diverging_legend(colours, scale, causal, name, "red: lower in B, blue: higher",
                          "-9: B lower by the largest change, +9: higher; blank: below 1/18 of it");
}

std::string signed_legend(TerminalColours colours, float scale, bool causal,
                          const std::string& name) {
  return diverging_legend(colours, scale, causal, name, "red: below 0, blue: above",
                          "-9: the lowest, +9: the highest magnitude; blank: below 1/18 of it");
}

std::string magnitude_legend(TerminalColours colours, float scale, bool causal,
                             const std::string& name) {
  char number[32];
  std::snprintf(number, sizeof number, "%.4f", scale);
  std::string line = name + " 0 ";
  const int steps = colours == TerminalColours::kShading ? 5 : 10;
  for (int k = 0; k < steps; ++k) line += weight_cell(k / static_cast<float>(steps - 1), colours);
  line += end_of_cells(colours);
  line += " " + std::string(number) + " (the largest here)";
  if (causal) line += "   " + masked_cell(colours) + " masked";
  return line;
}

}  // namespace minimt::view
