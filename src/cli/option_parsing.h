// Option helpers: ranged options; the values of list options, parsed in one place:
// "encoder,cross" and "0,-1" (translate --dump-*, --align-heads), "1,4-6" (view --sentences);
// and "6.7 MB"-style sizes in messages.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace minimt::cli {

// An option checked against [low, high], its value named `type` in the help ("N").
template <typename Number>
CLI::Option* add_ranged_option(CLI::App& command, const std::string& name, Number& target,
                               const std::string& help, const std::string& type, Number low,
                               Number high) {
  return command.add_option(name, target, help)->type_name(type)->check(CLI::Range(low, high));
}

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

// A file size for people: "6.7 MB", "11.5 KB", "512 B". With whole_kb, kilobytes are rounded to
// whole ones and sizes under 1 KB are given in KB too ("49 KB", "0 KB"), as view reports pages.
std::string human_size(long long bytes, bool whole_kb = false);

}  // namespace minimt::cli
