// The names of an enum's values, one table per enum that every direction reads: its to_string,
// its parsing (config.json choices, option values) and the lists of names in messages cannot
// disagree. A table is an array of {name, value} pairs in the order messages list them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace minimt {

template <typename Enum>
using EnumName = std::pair<const char*, Enum>;

// The name of `value` ("?" if the table has none).
template <typename Enum, size_t N>
constexpr const char* enum_name(const EnumName<Enum> (&names)[N], Enum value) {
  for (const auto& [name, known] : names)
    if (known == value) return name;
  return "?";
}

// The value named `text`, stored in `value`; false (and `value` unchanged) if none is.
template <typename Enum, size_t N>
bool enum_value(const EnumName<Enum> (&names)[N], const std::string& text, Enum& value) {
  for (const auto& [name, known] : names)
    if (text == name) {
      value = known;
      return true;
    }
  return false;
}

// "a, b, c": every name, in the table's order.
template <typename Enum, size_t N>
std::string enum_name_list(const EnumName<Enum> (&names)[N]) {
  std::string list;
  for (const auto& entry : names) list += (list.empty() ? "" : ", ") + std::string(entry.first);
  return list;
}

}  // namespace minimt
