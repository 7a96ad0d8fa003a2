// SentencePiece model files. The first byte chooses: even, the rest is a whole model file; odd,
// the rest is the precompiled charsmap of the hand model's tokenizer (where crafted files made
// SentencePiece read memory not its own), spliced in as its normalizer's. A model that loads
// then encodes fixed texts and the input's own bytes, finds unknown words, decodes the ids and
// names the pieces, as minimt does.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string_view>

#include "fuzz_common.h"
#include "minimt/model/protobuf_wire.h"
#include "minimt/model/tokenizer.h"

namespace {

std::string varint(uint64_t value) {
  std::string out;
  do {
    out += static_cast<char>((value & 0x7f) | (value > 0x7f ? 0x80 : 0));
    value >>= 7;
  } while (value);
  return out;
}

std::string length_field(uint32_t number, std::string_view bytes) {
  return varint(number << 3 | 2) + varint(bytes.size()) + std::string(bytes);
}

// The hand model's tokenizer with `charsmap` as its normalizer's charsmap.
std::string with_charsmap(std::string_view charsmap) {
  static const std::string hand = [] {
    std::ifstream in(MINIMT_HAND_MODEL "/vocab.spm", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::string out;
  minimt::protobuf::MessageReader reader(hand, 0);
  minimt::protobuf::Field field;
  while (reader.next(field))  // every field but the normalizer, as it is
    if (field.number != 3) out += hand.substr(field.offset, field.end - field.offset);
  return out + length_field(3, length_field(1, "fuzzed") + length_field(2, charsmap));
}

const char* const kTexts[] = {
    "a b c", "  A  B   Cc  ",        "caf\xc3\xa9 \xef\xbc\xa1 \xef\xac\x81", "\xff\xfe\x80 a",
    "",      "\xe2\x96\x81 x\ty\r\n"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string bytes = data[0] & 1 ? with_charsmap(rest) : std::string(rest);
  const std::string path = minimt_fuzz::write_file(
      "model.spm", reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  minimt_fuzz::expect_clean([&] {
    const minimt::Tokenizer tokenizer(path);
    std::string all_bytes;  // every byte but NUL, once: walks the charsmap from each of them
    for (int c = 1; c < 256; ++c) all_bytes += static_cast<char>(c);
    std::vector<std::string> texts(std::begin(kTexts), std::end(kTexts));
    texts.push_back(all_bytes);
    texts.emplace_back(rest.substr(0, 4096));
    for (const std::string& text : texts) {
      const std::vector<int> ids = tokenizer.encode(text);
      tokenizer.unknown_words(text);
      tokenizer.decode(ids);
    }
    for (int id = 0; id < std::min(tokenizer.size(), 256); ++id) {
      tokenizer.piece(id);
      tokenizer.is_unknown(id);
    }
  });
  return 0;
}
