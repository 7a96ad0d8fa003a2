// config.json parsing and validation: ModelConfig::from_json on the parsed bytes, and
// ModelConfig::load on the same bytes as a file.
#include <nlohmann/json.hpp>

#include "fuzz_common.h"
#include "minimt/model/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, false);
  if (!json.is_discarded())
    minimt_fuzz::expect_clean([&] { minimt::ModelConfig::from_json(json, "config.json"); });
  std::string path = minimt_fuzz::write_file("config.json", data, size);
  minimt_fuzz::expect_clean([&] { minimt::ModelConfig::load(path); });
  return 0;
}
