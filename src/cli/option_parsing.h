// Option helpers: ranged options; the values of list options, parsed in one place:
// "encoder,cross" and "0,-1" (translate --dump-*, --align-heads), "1,4-6" (view --sentences);
// and "6.7 MB"-style sizes in messages.
#pragma once

#include <CLI/CLI.hpp>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "minimt/base/human_size.h"  // human_size, for the subcommands

namespace minimt::cli {

// The problem with `text` as a number of type Number in [low, high], "" for none: anything but
// one whole decimal number (trailing text, spaces, a sign on an unsigned type), NaN, an
// infinity and a value past the type's range are refused before the range is checked, which
// NaN would pass (it compares false). For int, float, double, uint64_t.
template <typename Number>
std::string number_problem(const std::string& text, Number low, Number high);

// A validator of such numbers. With `describe`, the help shows the range beside the option as
// CLI11's Range describes it ("INT in [1 - 256]"), so that the help stays as it was.
template <typename Number>
CLI::Validator number_check(Number low, Number high, bool describe = true) {
  std::ostringstream range;
  if (describe)
    range << (std::is_integral<Number>::value ? "INT" : "FLOAT") << " in [" << low << " - " << high
          << "]";
  return CLI::Validator(
      [low, high](std::string& text) { return number_problem<Number>(text, low, high); },
      range.str());
}

// An option checked against [low, high], its value named `type` in the help ("N").
template <typename Number>
CLI::Option* add_ranged_option(CLI::App& command, const std::string& name, Number& target,
                               const std::string& help, const std::string& type, Number low,
                               Number high) {
  return command.add_option(name, target, help)->type_name(type)->check(number_check(low, high));
}

// A check for options naming a file or folder: "" names none, and is refused as such.
CLI::Validator non_empty_path();

// --side source|target (tokenize, vocab): which of the model's tokenizers, into `side`.
void add_side_option(CLI::App& command, std::string& side, const std::string& help);

// The items of one comma-separated argument ("0,-1"), so that the sentences after it stay
// sentences. Throws CLI::ValidationError naming `option` for an empty or a repeated item.
std::vector<std::string> parse_list(const std::string& option, const std::string& list);

// The numbers of such a list: up to 6 digits each, with a leading '-' if `negative`. Throws
// CLI::ValidationError "'ITEM' is not WHAT" for anything else.
std::vector<int> parse_numbers(const std::string& option, const std::string& list, bool negative,
                               const std::string& what);

// The sentence numbers of items like "3" and "5-8" (numbered from 1), each once, in order.
// Throws Error for other items and for numbers past `count`, the sentences there are.
std::vector<int> parse_sentence_ranges(const std::vector<std::string>& items, int count);
bool is_sentence_range(const std::string& text);

}  // namespace minimt::cli
