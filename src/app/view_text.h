// What the page (attention_page.cpp) and the SVG (attention_svg.cpp) say about each attention
// type, in one place; the page's script takes its names from the page's data.
#pragma once

#include <string>

namespace minimt::view {

struct TypeText {
  const char* type;     // as in dump_schema::kAttentionTypes
  const char* heading;  // section title
  const char* name;     // short, in the page's tooltips and menus
  const char* axes;     // what rows and columns are (HTML)
};

// Throws Error for a type the dump format does not have.
const TypeText& type_text(const std::string& type);

// Text for HTML and SVG, whatever its bytes: & < > " ' escaped; C0 controls but tab, LF and CR
// shown as their Control Pictures (U+0001 as U+2401, ..., DEL as U+2421); C1 controls,
// noncharacters (U+FDD0-FDEF, U+xFFFE, U+xFFFF) and each byte that is not UTF-8 as U+FFFD. So
// the output is always well-formed XML 1.0 and HTML without parse errors.
std::string html_escape(const std::string& text);

}  // namespace minimt::view
