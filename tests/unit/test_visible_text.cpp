// visible_text and visible_lines: what minimt prints of text it did not write. Expected values
// are written by hand from the rule in visible_text.h.
#include <catch2/catch.hpp>
#include <string>

#include "minimt/base/visible_text.h"

using namespace minimt;

TEST_CASE("ordinary text is kept byte for byte", "[visible]") {
  for (const std::string text : {"", "the cat", "a\\b", "l'été", "\xE2\x96\x81piece",
                                 "\xF0\x9F\x98\x80", "\xC2\xA0nbsp", "\xEF\xBF\xBF"}) {
    CHECK(visible_text(text) == text);
    CHECK(visible_lines(text) == text);
    CHECK(is_visible_text(text));
  }
}

TEST_CASE("C0 controls and DEL are escaped", "[visible]") {
  CHECK(visible_text("a\tb\nc\rd") == "a\\tb\\nc\\rd");
  CHECK(visible_text(std::string("\0x", 2)) == "\\x00x");
  CHECK(visible_text("\x1b]0;title\x07") == "\\x1B]0;title\\x07");
  CHECK(visible_text("\x1b[2J\x7f") == "\\x1B[2J\\x7F");
  CHECK_FALSE(is_visible_text("\x1b"));
}

TEST_CASE("C1 controls are escaped as code points", "[visible]") {
  CHECK(visible_text("\xC2\x80") == "\\u0080");
  CHECK(visible_text("x\xC2\x9B"
                     "1m") == "x\\u009B1m");
  CHECK(visible_text("\xC2\x9F\xC2\xA0") == "\\u009F\xC2\xA0");
}

TEST_CASE("bytes that are not UTF-8 are escaped one by one", "[visible]") {
  CHECK(visible_text("\xFF") == "\\xFF");
  CHECK(visible_text("a\x80z") == "a\\x80z");
  CHECK(visible_text("\xC3") == "\\xC3");                    // truncated sequence
  CHECK(visible_text("\xC0\xAF") == "\\xC0\\xAF");           // overlong '/'
  CHECK(visible_text("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // a surrogate (CESU-8)
  CHECK(visible_text("\xE2\x82"
                     "A") ==
        "\\xE2\\x82"
        "A");  // cut, then ASCII
  CHECK_FALSE(is_visible_text("\xFF"));
}

TEST_CASE("visible_lines keeps tab and newline, escapes the rest", "[visible]") {
  CHECK(visible_lines("1\t0\tthe\x1b[2J cat\n") == "1\t0\tthe\\x1B[2J cat\n");
  CHECK(visible_lines("a\rb\xC2\x85\xFF\n") == "a\\rb\\u0085\\xFF\n");
  // JSON text stays JSON with the same meaning: \u0085 is JSON's own escape.
  CHECK(visible_lines("{\"t\":\"\xC2\x85\"}\n") == "{\"t\":\"\\u0085\"}\n");
}
