#include "cli/option_parsing.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <utility>

#include "minimt/base/error.h"

namespace minimt::cli {

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

bool is_sentence_range(const std::string& text) {
  try {
    sentence_range(text);
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::string human_size(long long bytes, bool whole_kb) {
  char text[32];
  if (bytes >= (1 << 20))
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1048576.0);
  else if (whole_kb)
    std::snprintf(text, sizeof text, "%.0f KB", bytes / 1024.0);
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.1f KB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%lld B", bytes);
  return text;
}

}  // namespace minimt::cli
