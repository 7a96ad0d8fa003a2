// The attention-dump reader (minimt view's input), then the page and the SVGs it draws from
// whatever the reader accepted.
#include <sstream>

#include "fuzz_common.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/attention_view.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  minimt_fuzz::expect_clean([&] {
    minimt::AttentionDump dump = minimt::read_attention_dump(in, "dump");
    std::ostringstream page;
    minimt::write_attention_page(dump, page);
    for (const minimt::DumpSentence& sentence : dump.sentences)
      for (const minimt::AttentionMatrices& m : sentence.attention) {
        std::ostringstream svg;
        minimt::write_attention_svg(sentence, m.type, svg);
      }
  });
  return 0;
}
