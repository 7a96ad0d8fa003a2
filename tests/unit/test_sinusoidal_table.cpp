// The sinusoidal table a model tabulates at load gives the floats computed on the fly, bit for
// bit (the decoder uses one or the other by the table's size), and the formula by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "minimt/engine/ops.h"

using namespace minimt;

TEST_CASE("sinusoidal_table: each row equals add_sinusoidal_position, bit for bit", "[ops]") {
  for (int d_model : {1, 6, 7, 192, 512}) {
    const int positions = 130;
    std::vector<float> table(static_cast<size_t>(positions) * d_model);
    ops::sinusoidal_table(positions, d_model, table.data());
    for (int position = 0; position < positions; ++position) {
      std::vector<float> row(d_model, 0.0f);
      ops::add_sinusoidal_position(position, d_model, row.data());
      INFO("d_model " << d_model << ", position " << position);
      CHECK(std::memcmp(row.data(), table.data() + static_cast<size_t>(position) * d_model,
                        d_model * sizeof(float)) == 0);
    }
    // Row 3, pair 1: sin and cos of 3 / 10000^(2/d_model), in double then rounded.
    if (d_model >= 4) {
      const double angle = 3 / std::pow(10000.0, 2.0 / d_model);
      CHECK(table[3 * d_model + 2] == static_cast<float>(std::sin(angle)));
      CHECK(table[3 * d_model + 3] == static_cast<float>(std::cos(angle)));
    }
  }
}
