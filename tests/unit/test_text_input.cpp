// Hostile input text: UTF-8 decoding and cutting, the white space and control characters
// normalize_input maps, blank lines, words, the line reader's bound on long lines, and text
// that goes into JSON, HTML and SVG whatever its bytes. Expected values are written by hand.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../../src/app/views/view_text.h"
#include "minimt/app/io/line_reader.h"
#include "minimt/app/run/output_record.h"
#include "minimt/base/json_writer.h"
#include "minimt/base/text_input.h"
#include "minimt/base/utf8.h"

using namespace minimt;

namespace {

// Each of the Unicode White_Space characters, in UTF-8.
const std::vector<std::string> kWhiteSpace = {
    "\t",           "\n",           "\v",           "\f",           "\r",           " ",
    "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
    "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F",
    "\xE3\x80\x80"};

// A file holding `text`, removed when the test ends.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/minimt_text_input_XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line) == LineReader::Status::kLine) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("decode_utf8 reads one character or refuses the bytes", "[text]") {
  char32_t code = 0;
  CHECK(decode_utf8("a", 0, &code) == 1);
  CHECK(code == U'a');
  CHECK(decode_utf8("\xC3\xA9", 0, &code) == 2);
  CHECK(code == 0xE9);
  CHECK(decode_utf8("\xE3\x80\x80", 0, &code) == 3);
  CHECK(code == 0x3000);
  CHECK(decode_utf8("\xF0\x9F\x98\x80", 0, &code) == 4);
  CHECK(code == 0x1F600);
  CHECK(decode_utf8("\xEF\xBF\xBE", 0, &code) == 3);  // U+FFFE: a noncharacter, but UTF-8
  CHECK(code == 0xFFFE);
  CHECK(decode_utf8("\xC0\x80", 0, &code) == 0);          // overlong NUL
  CHECK(decode_utf8("\xE0\x80\xAF", 0, &code) == 0);      // overlong '/'
  CHECK(decode_utf8("\xED\xA0\x80", 0, &code) == 0);      // U+D800 (CESU-8)
  CHECK(decode_utf8("\xF4\x90\x80\x80", 0, &code) == 0);  // past U+10FFFF
  CHECK(decode_utf8("\x80", 0, &code) == 0);              // a lone continuation byte
  CHECK(decode_utf8("\xE2\x82", 0, &code) == 0);          // truncated
  CHECK(decode_utf8("\xFF", 0, &code) == 0);
  CHECK(decode_utf8("", 0, &code) == 0);
  CHECK(find_invalid_utf8("ab\xED\xA0\x80") == 2);
  CHECK(find_invalid_utf8("caf\xC3\xA9") == -1);
}

TEST_CASE("append_utf8 writes 1 to 4 bytes", "[text]") {
  std::string out;
  for (char32_t code : {U'A', char32_t(0xE9), char32_t(0x2401), char32_t(0x1F600)})
    append_utf8(out, code);
  CHECK(out == "A\xC3\xA9\xE2\x90\x81\xF0\x9F\x98\x80");
}

TEST_CASE("a line is cut at a character boundary", "[text]") {
  CHECK(utf8_prefix_length("abc", 5) == 3);
  CHECK(utf8_prefix_length("abc", 3) == 3);
  CHECK(utf8_prefix_length("abcd", 3) == 3);
  // "a" then U+00E9 (2 bytes) then U+3000 (3 bytes) then U+1F600 (4 bytes): offsets 0 1 3 6 10
  const std::string text = "a\xC3\xA9\xE3\x80\x80\xF0\x9F\x98\x80";
  const size_t expected[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10};
  for (size_t limit = 0; limit <= 10; ++limit) {
    INFO("limit " << limit);
    CHECK(utf8_prefix_length(text, limit) == expected[limit]);
  }
  std::string line = "\xC3\xA9\xC3\xA9";
  CHECK(cut_to_limit(line, 3));
  CHECK(line == "\xC3\xA9");
  CHECK_FALSE(cut_to_limit(line, 3));
  // Not UTF-8 at all: never more than three bytes are given back.
  CHECK(utf8_prefix_length(std::string(10, '\x80'), 8) == 5);
  CHECK(kMaxLineBytes == 65536);
}

TEST_CASE("every Unicode white space character becomes a space", "[text]") {
  for (const std::string& space : kWhiteSpace) {
    INFO("white space bytes of length " << space.size());
    CHECK(normalize_input("the" + space + "cat") == "the cat");
    CHECK(is_blank_input(space + space));
  }
  CHECK(normalize_input("a\t\tb") == "a  b");                // one space each
  CHECK(normalize_input("\xE2\x80\x8B") == "\xE2\x80\x8B");  // U+200B is not white space
  CHECK(normalize_input("\xE1\xA0\x8E") == "\xE1\xA0\x8E");  // nor U+180E any more
  CHECK(normalize_input("caf\xC3\xA9 \xE6\x97\xA5") == "caf\xC3\xA9 \xE6\x97\xA5");
}

TEST_CASE("control characters are removed, white space ones become spaces", "[text]") {
  CHECK(normalize_input(std::string("the\0cat", 7)) == "thecat");
  CHECK(normalize_input("the\x01\x1B\x1F\x7F"
                        "cat") == "thecat");
  CHECK(normalize_input("the\xC2\x80\xC2\x9F"
                        "cat") == "thecat");  // C1 controls
  CHECK(normalize_input("the\xC2\x85"
                        "cat") == "the cat");                  // NEL is white space
  CHECK(normalize_input("\xEF\xBB\xBFthe cat") == "the cat");  // a BOM at the start
  CHECK(normalize_input("the\xEF\xBB\xBF"
                        "cat") ==
        "the\xEF\xBB\xBF"
        "cat");  // not elsewhere
  CHECK(normalize_input("a\xFF\x01"
                        "b") ==
        "a\xFF"
        "b");  // bytes that are not UTF-8 stay
}

TEST_CASE("blank lines: white space, controls and invisible format characters only", "[text]") {
  CHECK(is_blank_input(""));
  CHECK(is_blank_input(" \t "));
  CHECK(is_blank_input("\xC2\xA0\xC2\xA0"));  // NBSP
  CHECK(is_blank_input("\xE3\x80\x80"));      // ideographic space
  CHECK(is_blank_input(std::string("\0\x01\x7F", 3)));
  CHECK(is_blank_input("\xC2\x80\xC2\x9F"));
  CHECK(is_blank_input("\xEF\xBB\xBF"));                       // a BOM
  CHECK(is_blank_input("\xE2\x80\x8B\xE2\x80\x8D \xC2\xAD"));  // ZWSP, ZWJ, soft hyphen
  CHECK(is_blank_input("\xE2\x80\x8F\xE2\x81\xA6"));           // RLM, LRI
  CHECK_FALSE(is_blank_input("."));
  CHECK_FALSE(
      is_blank_input("\xC2\xA0"
                     "a"));
  CHECK_FALSE(is_blank_input("\xEF\xBF\xBE"));  // U+FFFE is a character the model may read
  CHECK_FALSE(is_blank_input(" \xFF "));        // not UTF-8: not blank (the line fails)
}

TEST_CASE("words are split on the same white space", "[text]") {
  using Words = std::vector<std::string>;
  CHECK(split_words("the black\tcat") == Words{"the", "black", "cat"});
  CHECK(split_words("  the\xC2\xA0\xC2\xA0 cat\xE3\x80\x80.  ") == Words{"the", "cat", "."});
  CHECK(split_words("the\x01"
                    "cat sees") == Words{"thecat", "sees"});
  CHECK(split_words("\xEF\xBB\xBFI am") == Words{"I", "am"});
  CHECK(split_words("\xC2\xA0\t").empty());
}

TEST_CASE("the line reader keeps a bounded part of a huge line", "[text]") {
  const std::string huge(3 * kMaxLineBytes + 12345, 'x');
  TempFile file("first\n" + huge + "\nthird\r\n" + huge);
  const std::vector<std::string> lines = read_lines(file.path);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "first");
  CHECK(lines[1].size() == kMaxLineBytes + 1);  // the caller sees that it is too long
  CHECK(lines[1] == huge.substr(0, kMaxLineBytes + 1));
  CHECK(lines[2] == "third");  // the rest of the long line was dropped, not read as lines
  CHECK(lines[3].size() == kMaxLineBytes + 1);  // the last line, without '\n'
}

TEST_CASE("lines at the limit are kept whole", "[text]") {
  const std::string full(kMaxLineBytes, 'y');
  const std::string one_more(kMaxLineBytes + 1, 'z');
  TempFile file(full + "\n" + one_more + "\r\n" + full + "\r\n");
  const std::vector<std::string> lines = read_lines(file.path);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == full);
  CHECK(lines[1] == one_more);  // 64 KiB + 1 is kept, '\r' dropped: the translator cuts it
  CHECK(lines[2] == full);
}

TEST_CASE("markup text: controls and bad bytes never reach HTML or SVG raw", "[text]") {
  using view::html_escape;
  CHECK(html_escape("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&#39;");
  CHECK(html_escape(std::string("\0", 1)) == "\xE2\x90\x80");  // U+2400
  CHECK(html_escape("\x01") == "\xE2\x90\x81");
  CHECK(html_escape("\x1B") == "\xE2\x90\x9B");
  CHECK(html_escape("\x1F") == "\xE2\x90\x9F");
  CHECK(html_escape("\x7F") == "\xE2\x90\xA1");  // DEL: U+2421
  CHECK(html_escape("\t\n\r") == "\t\n\r");
  CHECK(html_escape("\xC2\x80\xC2\x9F") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(html_escape("\xEF\xBF\xBE\xEF\xBF\xBF\xEF\xB7\x90") ==
        "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(html_escape("\xF0\x9F\xBF\xBF") == "\xEF\xBF\xBD");  // U+1FFFF
  CHECK(html_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(html_escape("\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(html_escape("caf\xC3\xA9 \xE2\x96\x81") == "caf\xC3\xA9 \xE2\x96\x81");
}

TEST_CASE("JSON for a page script escapes what HTML refuses", "[text]") {
  using nlohmann::json;
  CHECK(json_for_script(json("\x7F")) == "\"\\u007f\"");
  CHECK(json_for_script(json("\xC2\x85")) == "\"\\u0085\"");
  CHECK(json_for_script(json("\xEF\xBF\xBF")) == "\"\\uffff\"");
  CHECK(json_for_script(json("\xF4\x8F\xBF\xBE")) == "\"\\udbff\\udffe\"");  // U+10FFFE
  CHECK(json_for_script(json("\x01")) == "\"\\u0001\"");
  CHECK(json_for_script(json("\xFF")) == "\"\xEF\xBF\xBD\"");
  CHECK(json_for_script(json("<\xC3\xA9")) == "\"\\u003c\xC3\xA9\"");
}

TEST_CASE("JSON numbers are null when not finite", "[text]") {
  std::string out;
  append_json_fixed(out, 12.3456, 3);
  out += ',';
  append_json_fixed(out, std::nan(""), 3);
  out += ',';
  append_json_fixed(out, -std::numeric_limits<double>::infinity(), 3);
  out += ',';
  append_json_float(out, std::numeric_limits<float>::quiet_NaN());
  out += ',';
  append_json_float(out, -0.43441772f);
  CHECK(out == "12.346,null,null,null,-0.43441772");
}

TEST_CASE("JSON Lines records: control characters escaped, NaN as null", "[text]") {
  OutputRecord record;
  record.line = 7;
  record.source = std::string("a\0\x01\x7F\xFF", 5);
  record.translation = "\"\\\n";
  record.tokens = {
      "\xE2\x96\x81"
      "b",
      "\x1F"};
  record.score = std::numeric_limits<float>::quiet_NaN();
  record.token_log_probs = {-std::numeric_limits<float>::infinity(), -0.5f};
  record.time_ms = 1.5;
  CHECK(jsonl_line(record) ==
        "{\"line\":7,\"source\":\"a\\u0000\\u0001\x7F\xEF\xBF\xBD\",\"translation\":"
        "\"\\\"\\\\\\n\",\"tokens\":[\"\xE2\x96\x81"
        "b\",\"\\u001f\"],\"score\":null,\"token_log_probs\":[null,-0.5],"
        "\"time_ms\":1.500}\n");
  record.score = -1.25f;
  record.time_ms = std::numeric_limits<double>::infinity();
  record.error = "invalid UTF-8 at byte 4";
  CHECK(jsonl_line(record) ==
        "{\"line\":7,\"source\":\"a\\u0000\\u0001\x7F\xEF\xBF\xBD\",\"error\":"
        "\"invalid UTF-8 at byte 4\",\"time_ms\":null}\n");
}
