#include "app/views/view_text.h"

#include "minimt/base/error.h"
#include "minimt/base/utf8.h"

namespace minimt::view {
namespace {

const TypeText kTexts[] = {
    {"encoder", "Encoder self-attention", "Encoder self-attention",
     "rows: queries = source pieces \u00b7 columns: keys = source pieces"},
    {"decoder", "Decoder masked self-attention", "Decoder masked self-attention",
     "rows: queries = decoder input pieces (the predicted piece on the right) \u00b7 columns: "
     "keys = decoder input pieces \u00b7 hatched: the causal mask (future positions)"},
    {"cross", "Cross-attention (decoder reads the encoder)", "Cross-attention",
     "rows: queries = decoder input pieces (the predicted piece on the right) \u00b7 columns: "
     "keys = source pieces"},
};

const char* const kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// One character of text for a terminal: C0 controls and DEL as their Control Pictures
// (U+2400-2421), C1 controls and noncharacters as U+FFFD, anything else as it is.
void append_terminal_char(std::string& out, char32_t code, const char* bytes, size_t length) {
  if (code < 0x20)
    append_utf8(out, 0x2400 + code);
  else if (code == 0x7f)
    append_utf8(out, 0x2421);
  else if ((code >= 0x80 && code <= 0x9f) || (code >= 0xfdd0 && code <= 0xfdef) ||
           (code & 0xfffe) == 0xfffe)
    out += kReplacement;
  else
    out.append(bytes, length);
}

// One character of text for HTML or SVG (XML 1.0): markup characters escaped, tab, LF and CR
// kept (both languages allow them), anything else as for a terminal (Control Pictures are
// visible and allowed).
void append_markup_char(std::string& out, char32_t code, const char* bytes, size_t length) {
  switch (code) {
    case '&':
      out += "&amp;";
      return;
    case '<':
      out += "&lt;";
      return;
    case '>':
      out += "&gt;";
      return;
    case '"':
      out += "&quot;";
      return;
    case '\'':
      out += "&#39;";
      return;
    case '\t':
    case '\n':
    case '\r':
      out.append(bytes, length);
      return;
  }
  append_terminal_char(out, code, bytes, length);
}

// Calls on_char(code, bytes, length) for each character of `text`, and on_char(U+FFFD, ...)
// with its UTF-8 for each byte that is not part of a valid UTF-8 sequence.
template <class OnChar>
void for_each_char(const std::string& text, OnChar on_char) {
  for (size_t i = 0; i < text.size();) {
    char32_t code;
    const size_t length = decode_utf8(text, i, &code);
    if (length == 0) {  // not UTF-8: one replacement character per byte
      on_char(0xFFFD, kReplacement, 3);
      ++i;
      continue;
    }
    on_char(code, text.data() + i, length);
    i += length;
  }
}

}  // namespace

const TypeText& type_text(const std::string& type) {
  for (const TypeText& text : kTexts)
    if (type == text.type) return text;
  throw Error("attention view: unknown attention type " + type);
}

std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text,
                [&](char32_t, const char* bytes, size_t length) { out.append(bytes, length); });
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](char32_t code, const char* bytes, size_t length) {
    append_markup_char(out, code, bytes, length);
  });
  return out;
}

std::string terminal_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for_each_char(text, [&](char32_t code, const char* bytes, size_t length) {
    append_terminal_char(out, code, bytes, length);
  });
  return out;
}

}  // namespace minimt::view
