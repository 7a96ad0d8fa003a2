// Writing the nested lists of the attention dump by hand (it streams: a sentence's matrices are
// never held as JSON): "[" item(0) "," item(1) ... "]".
#pragma once

#include <ostream>

namespace minimt {

// Writes a list of `count` entries; item(k) writes entry k.
template <typename Item>
void write_list(std::ostream& out, size_t count, Item item) {
  out << '[';
  for (size_t k = 0; k < count; ++k) {
    if (k) out << ',';
    item(k);
  }
  out << ']';
}

}  // namespace minimt
