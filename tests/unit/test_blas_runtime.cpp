#include <catch2/catch.hpp>

#include "minimt/engine/blas_runtime.h"

using minimt::blas_core_to_request;

TEST_CASE("Slow OpenBLAS kernels are replaced by the CPU's own", "[blas]") {
  // Debian 12's OpenBLAS 0.3.21 reports Prescott on CPUs it does not know.
  CHECK(blas_core_to_request(nullptr, "Prescott", "SkylakeX") == "SkylakeX");
  CHECK(blas_core_to_request(nullptr, "Prescott", "Haswell") == "Haswell");
  CHECK(blas_core_to_request(nullptr, "Sandybridge", "SkylakeX") == "SkylakeX");
}

TEST_CASE("A core set by the user is respected", "[blas]") {
  CHECK(blas_core_to_request("Prescott", "Prescott", "SkylakeX").empty());
  CHECK(blas_core_to_request("", "Prescott", "SkylakeX").empty());
}

TEST_CASE("No re-execution when OpenBLAS already runs a good core", "[blas]") {
  CHECK(blas_core_to_request(nullptr, "SkylakeX", "SkylakeX").empty());
  CHECK(blas_core_to_request(nullptr, "skylakex", "SkylakeX").empty());
  CHECK(blas_core_to_request(nullptr, "Cooperlake", "SkylakeX").empty());
  CHECK(blas_core_to_request(nullptr, "Zen", "Haswell").empty());
  CHECK(blas_core_to_request(nullptr, "Prescott", "").empty());  // nothing better known
}

TEST_CASE("The running core is reported", "[blas]") {
  std::string core = minimt::blas_core_name();
  CHECK_FALSE(core.empty());
  CHECK(core != "unknown");
}
