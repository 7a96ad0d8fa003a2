// What the page and the SVG (attention_svg.cpp) say about each attention type, in one place:
// attention_page.cpp writes these texts into the page's data, where its script reads them.
#pragma once

#include <string>

namespace minimt::view {

struct TypeText {
  const char* type;     // as in dump_schema::kAttentionTypes
  const char* heading;  // section title
  const char* name;     // short, in the page's tooltips and menus
  const char* axes;     // what rows and columns are
};

// Throws Error for a type the dump format does not have.
const TypeText& type_text(const std::string& type);

// The rollouts (--rollout), drawn in the section of the type they extend.
struct RolloutText {
  const char* key;      // the dump's and the page's key: "encoder_rollout", "cross_rollout"
  const char* of;       // the type whose section shows it: "encoder", "cross"
  const char* name;     // in tooltips
  const char* caption;  // under the heatmap
  const char* note;     // above it: what it is, and that it is a heuristic
};
const RolloutText kRolloutTexts[] = {
    {"encoder_rollout", "encoder", "Encoder rollout (a heuristic)", "encoder rollout",
     "Row i: how much encoder output i draws on each source piece if attention alone moved "
     "information, each layer's head average taken as 0.5\u00a0A\u00a0+\u00a00.5\u00a0I (the "
     "residual), rows renormalized, multiplied from the first layer up (Abnar and Zuidema "
     "2020). It leaves out the values, the feed-forward layers and the norms."},
    {"cross_rollout", "cross", "Cross rollout (a heuristic)", "cross rollout",
     "Row t: the last decoder layer's cross-attention averaged over its heads, times the "
     "encoder rollout: how much each source piece reaches step t through attention alone."},
};

// `text` with each byte that is not UTF-8 as U+FFFD, as html_escape shows it.
std::string valid_utf8(const std::string& text);

// Text for HTML and SVG, whatever its bytes: & < > " ' escaped; C0 controls but tab, LF and CR
// shown as their Control Pictures (U+0001 as U+2401, ..., DEL as U+2421); C1 controls,
// noncharacters (U+FDD0-FDEF, U+xFFFE, U+xFFFF) and each byte that is not UTF-8 as U+FFFD. So
// the output is always well-formed XML 1.0 and HTML without parse errors.
std::string html_escape(const std::string& text);

// Text for a terminal, whatever its bytes: every control character (tab, LF and CR too, so that
// a label stays on its line and no escape sequence gets through) as its Control Picture, C1
// controls, noncharacters and each byte that is not UTF-8 as U+FFFD.
std::string terminal_escape(const std::string& text);

}  // namespace minimt::view
