// The readers under the model files' parsers: the JSON document builder (keys named twice, depth),
// the slip finder for unknown keys, the protobuf wire reader and the charsmap's header checks.
// tests/e2e/test_said_twice.py and test_tokenizer_files.py run the same code on whole files.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "minimt/model/charsmap_check.h"
#include "minimt/model/json_dom_builder.h"
#include "minimt/model/protobuf_wire.h"
#include "minimt/model/untrusted_json.h"

using minimt::JsonDomBuilder;
using nlohmann::json;

namespace {

JsonDomBuilder build(const std::string& text, int max_depth = 64) {
  JsonDomBuilder builder(max_depth);
  json::sax_parse(text, &builder);
  return builder;
}

}  // namespace

TEST_CASE("json builder: the same document as json::parse", "[hostile]") {
  for (const std::string text :
       {R"({"a": [1, -2, 3.5, "x\u00e9\n", true, null, {}, []], "b": {"c": [[1], {"d": 2}]}})",
        "[]", "7", R"("s")", R"([{"k": 18446744073709551615}, -9223372036854775808, 1e-300])"}) {
    JsonDomBuilder builder = build(text);
    REQUIRE(builder.problem() == JsonDomBuilder::Problem::kNone);
    CHECK(builder.document() == json::parse(text));
    CHECK(builder.document().dump() == json::parse(text).dump());
  }
}

TEST_CASE("json builder: a key named twice stops it, with the path to the key", "[hostile]") {
  JsonDomBuilder builder = build(R"({"a": [1, {"b": 1, "c": {}, "b": 2}], "z": 0})");
  CHECK(builder.problem() == JsonDomBuilder::Problem::kDuplicateKey);
  CHECK(builder.path() == std::vector<std::string>{"a", "[1]", "b"});
  CHECK(minimt::json_path_text(builder.path()) == "a[1].b");
  CHECK(minimt::json_path_text(builder.path(), 1) == "[1].b");
  // Equal keys in different objects are not the same key.
  CHECK(build(R"({"a": {"b": 1}, "c": {"b": 1}, "b": [{"b": 1}, {"b": 2}]})").problem() ==
        JsonDomBuilder::Problem::kNone);
}

TEST_CASE("json builder: nesting past its limit and syntax errors stop it", "[hostile]") {
  CHECK(build("[[[]]]", 3).problem() == JsonDomBuilder::Problem::kNone);
  CHECK(build("[[[[]]]]", 3).problem() == JsonDomBuilder::Problem::kTooDeep);
  JsonDomBuilder bad = build("[1, 2");
  CHECK(bad.problem() == JsonDomBuilder::Problem::kSyntax);
  CHECK(bad.syntax_message().find("parse_error") != std::string::npos);
  CHECK(build("[1e999]").syntax_message().find("number overflow") != std::string::npos);
}

TEST_CASE("closest_key: slips of a known key, and nothing for other words", "[hostile]") {
  const std::vector<std::string> known = {"d_model", "head_dim", "decoder_start_token"};
  CHECK(minimt::closest_key("head_dimm", known) == "head_dim");
  CHECK(minimt::closest_key("Head-Dim", known) == "head_dim");
  CHECK(minimt::closest_key("haed_dim", known) == "head_dim");  // two letters swapped
  CHECK(minimt::closest_key("d_modle", known) == "d_model");
  CHECK(minimt::closest_key("decoder_start_tokens", known) == "decoder_start_token");
  CHECK(minimt::closest_key("start_token", known).empty());
  CHECK(minimt::closest_key("comment", known).empty());
  CHECK(minimt::closest_key(std::string(1 << 20, 'x'), known).empty());
}

TEST_CASE("protobuf wire: fields, their ends, and what is not a whole message", "[hostile]") {
  using minimt::protobuf::Field;
  using minimt::protobuf::MessageReader;
  using minimt::protobuf::WireError;
  using minimt::protobuf::WireType;
  // field 1 varint 150; field 2 "ab"; field 3 fixed32.
  const std::string message(
      "\x08\x96\x01\x12\x02"
      "ab"
      "\x1d\x01\x02\x03\x04",
      12);
  MessageReader reader(message, 100);
  Field field;
  REQUIRE(reader.next(field));
  CHECK((field.number == 1 && field.type == WireType::kVarint && field.varint == 150));
  CHECK((field.offset == 100 && field.end == 103));
  REQUIRE(reader.next(field));
  CHECK((field.number == 2 && field.type == WireType::kLength && field.bytes == "ab"));
  REQUIRE(reader.next(field));
  CHECK((field.number == 3 && field.type == WireType::kFixed32 && field.end == 112));
  CHECK_FALSE(reader.next(field));

  auto error_of = [](const std::string& bytes) {
    MessageReader bad(bytes, 0);
    Field f;
    try {
      while (bad.next(f)) {
      }
    } catch (const WireError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(std::string("\x12\x05"
                             "ab",
                             4)) == "at byte 0: field 2 claims 5 bytes but its message has 2 left");
  CHECK(error_of(std::string("\x08") + std::string(11, '\xff')) ==
        "at byte 1: a varint is longer than 10 bytes");
  CHECK(error_of("\x0b") ==
        "at byte 0: field 1 has wire type 3 (a group, which SentencePiece "
        "never writes)");
  CHECK(error_of(std::string("\x00\x01", 2)) ==
        "at byte 0: field number 0 is not a protobuf "
        "field number");
  CHECK(error_of("\x08") == "at byte 1: a varint runs past the end of its message");
}

TEST_CASE("charsmap: its size header is checked before the trie", "[hostile]") {
  CHECK(minimt::charsmap_problem("").empty());
  CHECK(minimt::charsmap_problem("abc") == "it is 3 bytes, too short to hold its trie's size");
  CHECK(minimt::charsmap_problem(std::string("\xff\xff\xff\x7f", 4) + "xyz") ==
        "it claims a trie of 2147483647 bytes but holds 3 after the size");
  CHECK(minimt::charsmap_problem(std::string("\x08\x00\x00\x00", 4) + std::string(8, '\0')) ==
        "it claims a trie of 8 bytes, not a whole number of 4-byte units, at least 256");
  // 256 units of zeros: the root leads back to itself through byte 0.
  CHECK(minimt::charsmap_problem(std::string("\x00\x04\x00\x00", 4) + std::string(1024, '\0'))
            .find("leads back to unit 0, a loop") != std::string::npos);
}
