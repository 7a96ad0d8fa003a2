#include "cli/option_parsing.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "minimt/base/error.h"

namespace minimt::cli {

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& path) { return path.empty() ? "an empty path names no file" : ""; }, "");
}

void add_side_option(CLI::App& command, std::string& side, const std::string& help) {
  command.add_option("--side", side, help)
      ->check(CLI::IsMember({"source", "target"}))
      ->capture_default_str();
}

std::vector<std::string> parse_list(const std::string& option, const std::string& list) {
  std::vector<std::string> items;
  for (size_t start = 0;;) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.empty()) throw CLI::ValidationError(option, "an empty item in '" + list + "'");
    for (const auto& seen : items)
      if (seen == item) throw CLI::ValidationError(option, "'" + item + "' is listed twice");
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

std::vector<int> parse_numbers(const std::string& option, const std::string& list, bool negative,
                               const std::string& what) {
  std::vector<int> numbers;
  for (const auto& item : parse_list(option, list)) {
    size_t digits = negative && item[0] == '-' ? 1 : 0;
    if (item.size() == digits || item.size() > digits + 6 ||
        item.find_first_not_of("0123456789", digits) != std::string::npos)
      throw CLI::ValidationError(option, "'" + item + "' is not " + what);
    numbers.push_back(std::stoi(item));
  }
  return numbers;
}

namespace {

// `text` read whole by `read` (a strtoX taking text, end pointer), or the problem with it.
template <typename Wide, typename Read>
std::string read_whole(const std::string& text, Wide& value, bool integral, Read read) {
  const std::string kind = integral ? "a whole number" : "a number";
  // strto* skip leading spaces and read "inf", "nan" and "0x..": a digit (or a point) begins
  // the number, after at most a sign.
  const size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const char first = text.size() > sign ? text[sign] : '\0';
  if (!(std::isdigit(static_cast<unsigned char>(first)) || (!integral && first == '.')))
    return "'" + text + "' is not " + kind;
  char* end = nullptr;
  errno = 0;
  value = read(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return "'" + text + "' is not " + kind;
  if (errno == ERANGE) return text + " is past the range of numbers minimt reads";
  return "";
}

template <typename Number>
std::string range_problem(const std::string& text, Number value, Number low, Number high) {
  if (value >= low && value <= high) return "";
  std::ostringstream message;
  message << text << " is not in [" << low << ", " << high << "]";
  return message.str();
}

// "3" -> {3, 3}, "5-8" -> {5, 8}; throws Error for anything else. Up to 9 digits each, so that
// every number fits an int.
std::pair<int, int> sentence_range(const std::string& item) {
  auto number = [&item](const std::string& text) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) < 1)
      throw Error("'" + item + "' is not a sentence number or range like 3-5 (numbered from 1)");
    return std::stoi(text);
  };
  size_t dash = item.find('-');
  int first = number(item.substr(0, dash));
  int last = dash == std::string::npos ? first : number(item.substr(dash + 1));
  if (last < first) throw Error("'" + item + "' is an empty range");
  return {first, last};
}

}  // namespace

std::vector<int> parse_sentence_ranges(const std::vector<std::string>& items, int count) {
  std::vector<int> numbers;
  std::vector<bool> seen(static_cast<size_t>(std::max(count, 0)) + 1);
  for (const std::string& item : items) {
    auto [first, last] = sentence_range(item);
    // Checked before expanding, so that 1-999999999 costs nothing.
    if (last > count)
      throw Error("--sentences " + item + ": sentence " + std::to_string(last) +
                  " is not in the dump (it holds " + std::to_string(count) +
                  " sentences, numbered from 1)");
    for (int n = first; n <= last; ++n)
      if (!seen[n]) {
        seen[n] = true;
        numbers.push_back(n);
      }
  }
  return numbers;
}

template <typename Number>
std::string number_problem(const std::string& text, Number low, Number high) {
  if constexpr (std::is_floating_point<Number>::value) {
    double value = 0;
    std::string problem = read_whole(text, value, false,
                                     [](const char* s, char** end) { return std::strtod(s, end); });
    // Decimal only: strtod also reads hexadecimal (0x10). NaN and the infinities cannot begin
    // with a digit, and an overflow is ERANGE: the value is finite.
    if (problem.empty() && text.find_first_not_of("0123456789+-.eE") != std::string::npos)
      problem = "'" + text + "' is not a number";
    if (problem.empty() && std::fabs(value) > std::numeric_limits<Number>::max())
      problem = text + " is past the range of numbers minimt reads";
    // Compared as the option's type reads it: 1e-3 as a float is the float 0.001 of the range.
    return problem.empty() ? range_problem(text, static_cast<Number>(value), low, high) : problem;
  } else if constexpr (std::is_signed<Number>::value) {
    long long value = 0;
    std::string problem = read_whole(
        text, value, true, [](const char* s, char** end) { return std::strtoll(s, end, 10); });
    return problem.empty() ? range_problem(text, value, (long long)low, (long long)high) : problem;
  } else {
    unsigned long long value = 0;
    std::string problem = text.empty() || text[0] == '-' || text[0] == '+'
                              ? "'" + text + "' is not a whole number from 0"
                              : read_whole(text, value, true, [](const char* s, char** end) {
                                  return std::strtoull(s, end, 10);
                                });
    return problem.empty()
               ? range_problem(text, value, (unsigned long long)low, (unsigned long long)high)
               : problem;
  }
}

template std::string number_problem<int>(const std::string&, int, int);
template std::string number_problem<float>(const std::string&, float, float);
template std::string number_problem<double>(const std::string&, double, double);
template std::string number_problem<uint64_t>(const std::string&, uint64_t, uint64_t);

bool is_sentence_range(const std::string& text) {
  try {
    sentence_range(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace minimt::cli
