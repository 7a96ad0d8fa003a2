// The text path on the hand-written model: the input as one sentence (translated with its
// attention recorded, dumped, and the dump read back), then as a batch file read line by line.
#include <sstream>

#include "fuzz_common.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/record/attention_dump.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/record/dump_recorder.h"
#include "minimt/app/translate/batch_runner.h"
#include "minimt/app/translate/translator.h"
#include "minimt/model/model.h"

namespace {

const minimt::Translator& translator() {
  static const minimt::Translator instance(minimt::Model::load(MINIMT_HAND_MODEL));
  return instance;
}

void as_sentence(const std::string& text) {
  minimt::TranslateOptions options;
  options.record_attention = true;
  std::vector<minimt::Translation> result = translator().translate({text}, options);
  std::ostringstream dump;
  const minimt::DumpRecorder recorder(translator().model());
  minimt::AttentionDumpWriter writer(dump, recorder.header());
  writer.add(recorder.record(result.at(0), 1));
  writer.finish();
  // What minimt wrote, minimt view must read back.
  std::istringstream in(dump.str());
  minimt::read_attention_dump(in, "roundtrip");
}

void as_batch_file(const uint8_t* data, size_t size) {
  std::string path = minimt_fuzz::write_file("input.txt", data, size);
  minimt::LineReader reader(path);
  minimt::BatchOptions options;
  options.batch_size = 3;
  long long lines = 0;
  minimt::BatchCallbacks callbacks;
  callbacks.write = [&](minimt::LineBatch& batch) {
    lines += static_cast<long long>(batch.translations.size());
    return true;
  };
  minimt::ReaderLines source(reader);
  minimt::translate_lines(translator(), source, options, callbacks);
  if (lines != reader.lines_read()) std::abort();  // every line read came back translated
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  minimt_fuzz::expect_clean([&] { as_sentence(text); });
  minimt_fuzz::expect_clean([&] { as_batch_file(data, size); });
  return 0;
}
