// Packing a weight into a 32-column panel is a transpose: every packer this CPU runs writes
// out[i][j] = rows[j][i], and zeros past the last column.
#include <catch2/catch.hpp>
#include <vector>

#include "engine/kernels/packed_kernels.h"

using namespace minimt;

namespace {

void check_packer(void (*pack)(const float*, int, int, float*), const char* name) {
  constexpr int kPanel = PackedMatrix::kPanel;
  for (int columns : {1, 7, 8, 9, 16, 31, 32})
    for (int k : {1, 5, 8, 13, 16, 64, 67}) {
      std::vector<float> rows(static_cast<size_t>(columns) * k);
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(i) + 0.5f;
      std::vector<float> out(static_cast<size_t>(k) * kPanel, -1.0f);
      pack(rows.data(), columns, k, out.data());
      bool transposed = true;
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < kPanel; ++j) {
          const float expected = j < columns ? rows[static_cast<size_t>(j) * k + i] : 0.0f;
          transposed = transposed && out[static_cast<size_t>(i) * kPanel + j] == expected;
        }
      INFO(name << ": " << columns << " columns, k " << k);
      CHECK(transposed);
    }
}

}  // namespace

TEST_CASE("pack_panel: every packer transposes rows into a panel", "[packed]") {
  check_packer(kernels::pack_panel_generic, "generic");
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) check_packer(kernels::pack_panel_avx2, "avx2");
#endif
}
