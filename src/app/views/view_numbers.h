// How the views print a number the dump holds: rounded to the digits printed, and a value that
// is not 0 never printed as 0 (a student would read it as "no attention at all").
#pragma once

#include <string>

namespace minimt::view {

// printf("%.*f", decimals, x); a non-zero x that would print as 0 at that many decimals in %.2g
// instead (2.1e-05).
std::string fixed_nonzero(double x, int decimals);

// The shortest decimal that reads back as the same float: the digits the dump holds.
std::string float_text(float x);

}  // namespace minimt::view
