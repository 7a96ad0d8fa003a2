// OpenBLAS's start-up environment (blas_environment) and the library opened on first use.
#include <catch2/catch.hpp>

#include "minimt/engine/blas_runtime.h"
#include "minimt/engine/ops.h"

using minimt::blas_environment;

TEST_CASE("OpenBLAS gets the CPU's own core and one thread unless the user chose", "[blas]") {
  // Debian 12's OpenBLAS 0.3.21 reports Prescott (its slowest) on CPUs it does not know.
  auto settings = blas_environment(nullptr, nullptr, "SkylakeX");
  CHECK(settings.core_type == "SkylakeX");
  CHECK(settings.num_threads == "1");
  CHECK(blas_environment(nullptr, nullptr, "Haswell").core_type == "Haswell");
  // Nothing better known: OpenBLAS detects.
  CHECK(blas_environment(nullptr, nullptr, "").core_type.empty());
  // The user's settings stand, even empty ones.
  settings = blas_environment("Prescott", "4", "SkylakeX");
  CHECK(settings.core_type.empty());
  CHECK(settings.num_threads.empty());
  CHECK(blas_environment("", nullptr, "SkylakeX").core_type.empty());
}

TEST_CASE("OpenBLAS opens on first use, on one thread, and multiplies", "[blas]") {
  // C[2, 3] = A[2, 2] B[3, 2]^T by hand: A = [[1, 2], [3, 4]], B = [[1, 0], [0, 1], [1, 1]].
  const float a[] = {1, 2, 3, 4}, b[] = {1, 0, 0, 1, 1, 1};
  float c[6] = {};
  minimt::ops::gemm(2, 3, 2, 1.0f, a, 2, b, 2, true, 0.0f, c, 3);
  const float expected[] = {1, 2, 3, 3, 4, 7};
  for (int i = 0; i < 6; ++i) CHECK(c[i] == expected[i]);
  float row[3] = {};
  minimt::ops::gemm(1, 3, 2, 2.0f, a, 2, b, 2, true, 0.0f, row, 3);  // the sgemv path
  CHECK(row[0] == 2.0f);
  CHECK(row[1] == 4.0f);
  CHECK(row[2] == 6.0f);
  CHECK(minimt::blas_loaded());
  CHECK(minimt::blas_threads() == 1);
  const std::string core = minimt::blas_core_name();
  CHECK_FALSE(core.empty());
  CHECK(core != "unknown");
}
