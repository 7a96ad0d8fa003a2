// How a row of the request options' table (request_options.cpp) reads and sets its field of
// Request: the option's type follows the field's C++ type, and an optional field is unset
// until a value sets it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "minimt/app/run/request_options.h"

namespace minimt::option_fields {

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// The option type of a field of type T (an optional one: of its value).
template <typename T>
constexpr OptionType type_of() {
  if constexpr (IsOptional<T>::value) return type_of<typename T::value_type>();
  if constexpr (std::is_same_v<T, int>) return OptionType::kInteger;
  if constexpr (std::is_same_v<T, uint64_t>) return OptionType::kUnsigned;
  if constexpr (std::is_same_v<T, float>) return OptionType::kNumber;
  if constexpr (std::is_same_v<T, bool>) return OptionType::kBoolean;
  if constexpr (std::is_same_v<T, std::string>) return OptionType::kText;
  if constexpr (std::is_same_v<T, std::vector<int>>) return OptionType::kIntegerList;
  return OptionType::kTextList;  // std::vector<std::string>: write() takes no other type
}

inline OptionValue to_value(int value) {
  return static_cast<long long>(value);
}
inline OptionValue to_value(uint64_t value) {
  return value;
}
inline OptionValue to_value(float value) {
  return static_cast<double>(value);
}
inline OptionValue to_value(bool value) {
  return value;
}
inline OptionValue to_value(const std::string& value) {
  return value;
}
inline OptionValue to_value(const std::vector<int>& value) {
  return std::vector<long long>(value.begin(), value.end());
}
inline OptionValue to_value(const std::vector<std::string>& value) {
  return value;
}
template <typename T>
std::optional<OptionValue> read(const T& field) {
  return to_value(field);
}
template <typename T>
std::optional<OptionValue> read(const std::optional<T>& field) {
  if (!field) return std::nullopt;
  return to_value(*field);
}

inline void write(const OptionValue& value, int& field) {
  field = static_cast<int>(std::get<long long>(value));
}
inline void write(const OptionValue& value, uint64_t& field) {
  field = std::get<uint64_t>(value);
}
inline void write(const OptionValue& value, float& field) {
  field = static_cast<float>(std::get<double>(value));
}
inline void write(const OptionValue& value, bool& field) {
  field = std::get<bool>(value);
}
inline void write(const OptionValue& value, std::string& field) {
  field = std::get<std::string>(value);
}
inline void write(const OptionValue& value, std::vector<int>& field) {
  const auto& items = std::get<std::vector<long long>>(value);
  field.assign(items.begin(), items.end());
}
inline void write(const OptionValue& value, std::vector<std::string>& field) {
  field = std::get<std::vector<std::string>>(value);
}
template <typename T>
void write(const OptionValue& value, std::optional<T>& field) {
  write(value, field.emplace());
}

// A field's type, and how to read and set it.
struct Field {
  OptionType type;
  std::function<std::optional<OptionValue>(const Request&)> get;
  std::function<void(Request&, const OptionValue&)> set;
};

// A field of Request itself (threads).
template <typename Value>
Field of(Value Request::*field) {
  return {type_of<Value>(), [field](const Request& r) { return read(r.*field); },
          [field](Request& r, const OptionValue& v) { write(v, r.*field); }};
}

// A field of one of Request's parts (search.beam_size, record.align).
template <typename Part, typename Value>
Field of(Part Request::*part, Value Part::*field) {
  return {type_of<Value>(), [part, field](const Request& r) { return read(r.*part.*field); },
          [part, field](Request& r, const OptionValue& v) { write(v, r.*part.*field); }};
}

}  // namespace minimt::option_fields
