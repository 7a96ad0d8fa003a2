#include "app/views/view_numbers.h"

#include <cmath>
#include <cstdio>

#include "minimt/base/json_writer.h"

namespace minimt::view {

std::string fixed_nonzero(double x, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, x);
  // What printf printed is 0 (or -0) but x is not: its own two digits.
  if (x != 0 && std::isfinite(x) && std::fabs(std::atof(text)) == 0)
    std::snprintf(text, sizeof text, "%.2g", x);
  return text;
}

std::string float_text(float x) {
  std::string out;
  append_json_float(out, x);
  return out;
}

}  // namespace minimt::view
