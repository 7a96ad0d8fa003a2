#include "minimt/base/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

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

std::string json_for_script(const nlohmann::json& value) {
  const std::string text = dump(value);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

}  // namespace minimt
