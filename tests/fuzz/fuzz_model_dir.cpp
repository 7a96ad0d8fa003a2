// A whole model directory: the input's first 4 bytes (little-endian) give the length of
// config.json, the rest after it becomes model.safetensors; the hand model's tokenizer sits
// beside them. A model that loads then translates one short sentence.
#include <algorithm>
#include <filesystem>

#include "fuzz_common.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    std::string made = std::string(minimt_fuzz::scratch_dir()) + "/model";
    std::filesystem::create_directories(made);
    std::filesystem::copy_file(MINIMT_HAND_MODEL "/vocab.spm", made + "/vocab.spm",
                               std::filesystem::copy_options::overwrite_existing);
    return made;
  }();
  if (size < 4) return 0;
  size_t config_size = data[0] | (data[1] << 8) | (data[2] << 16) | (size_t(data[3]) << 24);
  config_size = std::min(config_size, size - 4);
  minimt_fuzz::write_file("model/config.json", data + 4, config_size);
  minimt_fuzz::write_file("model/model.safetensors", data + 4 + config_size,
                          size - 4 - config_size);
  minimt_fuzz::expect_clean([&] {
    minimt::Translator translator(minimt::Model::load(dir));
    minimt::TranslateOptions options;
    options.max_length = 8;
    translator.translate({"a b"}, options);
  });
  return 0;
}
