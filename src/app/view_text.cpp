#include "app/view_text.h"

#include "minimt/base/error.h"

namespace minimt::view {
namespace {

const TypeText kTexts[] = {
    {"encoder", "Encoder self-attention", "Encoder self-attention",
     "rows: queries = source pieces &middot; columns: keys = source pieces"},
    {"decoder", "Decoder masked self-attention", "Decoder masked self-attention",
     "rows: queries = decoder input pieces (the predicted piece on the right) &middot; columns: "
     "keys = decoder input pieces &middot; hatched: the causal mask (future positions)"},
    {"cross", "Cross-attention (decoder reads the encoder)", "Cross-attention",
     "rows: queries = decoder input pieces (the predicted piece on the right) &middot; columns: "
     "keys = source pieces"},
};

}  // namespace

const TypeText& type_text(const std::string& type) {
  for (const TypeText& text : kTexts)
    if (type == text.type) return text;
  throw Error("attention view: unknown attention type " + type);
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace minimt::view
