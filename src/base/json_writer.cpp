#include "minimt/base/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "minimt/base/utf8.h"

namespace minimt {
namespace {

// nlohmann's serialiser does the escaping (all of U+0000-U+001F) and the UTF-8 repair.
std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Returns the number of characters written to `buffer` (at least 32 bytes).
size_t format_float(char* buffer, float value) {
  if (!std::isfinite(value)) {
    std::memcpy(buffer, "null", 4);
    return 4;
  }
  auto result = std::to_chars(buffer, buffer + 32, value);  // shortest round-trip
  return static_cast<size_t>(result.ptr - buffer);
}

// Characters HTML does not want raw in a page (control characters and noncharacters are parse
// errors there). They can only be inside JSON strings, where \uXXXX means the same.
bool is_noncharacter(char32_t code) {
  return (code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) == 0xfffe;
}

void append_escape(std::string& out, char32_t code) {
  char buffer[16];
  if (code >= 0x10000) {  // a surrogate pair
    const char32_t v = code - 0x10000;
    std::snprintf(buffer, sizeof buffer, "\\u%04x\\u%04x",
                  static_cast<unsigned>(0xd800 + (v >> 10)),
                  static_cast<unsigned>(0xdc00 + (v & 0x3ff)));
  } else {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(code));
  }
  out += buffer;
}

}  // namespace

void append_json_string(std::string& out, const std::string& text) {
  out += dump(nlohmann::json(text));
}

void write_json_string(std::ostream& out, const std::string& text) {
  out << dump(nlohmann::json(text));
}

std::string json_string(const std::string& text) {
  return dump(nlohmann::json(text));
}

void append_json_float(std::string& out, float value) {
  char buffer[32];
  out.append(buffer, format_float(buffer, value));
}

void write_json_float(std::ostream& out, float value) {
  char buffer[32];
  out.write(buffer, static_cast<std::streamsize>(format_float(buffer, value)));
}

void append_json_fixed(std::string& out, double value, int decimals) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  if (n > 0 && static_cast<size_t>(n) < sizeof buffer)
    out.append(buffer, static_cast<size_t>(n));
  else  // too large for a fixed notation of this size: the shortest form instead
    append_json_float(out, static_cast<float>(value));
}

std::string json_for_script(const nlohmann::json& value) {
  const std::string text = dump(value);  // valid UTF-8: the dump repaired it
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const size_t length = std::max<size_t>(decode_utf8(text, i, &code), 1);
    if (code == '<' || code == 0x7f || (code >= 0x80 && code <= 0x9f) || is_noncharacter(code))
      append_escape(out, code);
    else
      out.append(text, i, length);
    i += length;
  }
  return out;
}

}  // namespace minimt
