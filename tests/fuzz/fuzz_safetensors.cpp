// The safetensors reader on arbitrary file contents (it memory-maps a path, so the bytes go
// through a file).
#include "fuzz_common.h"
#include "minimt/model/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = minimt_fuzz::write_file("model.safetensors", data, size);
  minimt_fuzz::expect_clean([&] {
    minimt::TensorStore store;
    minimt::read_safetensors(path, store);
  });
  return 0;
}
