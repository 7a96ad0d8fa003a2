// The flags of request options (request_flags.h).
#include "cli/request_flags.h"

#include <cfloat>
#include <climits>
#include <cstdint>
#include <utility>

#include "cli/commands.h"
#include "cli/option_parsing.h"

namespace minimt::cli {
namespace {

using Take = std::function<void(const OptionValue&)>;

// A number's check: the row's range, described in --help as CLI11's Range describes it; or
// any number of the type, not described.
template <typename Number>
CLI::Validator range_check(const RequestOption& option, Number lowest, Number highest) {
  if (!option.range) return number_check<Number>(lowest, highest, false);
  return number_check<Number>(static_cast<Number>(option.range->low),
                              static_cast<Number>(option.range->high));
}

// A list of one argument ("0,-1", "encoder,cross"), its items checked as the row says.
CLI::Option* add_list(CLI::App& command, const RequestOption& option, const std::string& flag,
                      Take take) {
  const auto parse = [&option, flag, take](const std::string& list) {
    if (option.type == OptionType::kTextList) {
      std::vector<std::string> items = parse_list(flag, list);
      for (const std::string& item : items)
        if (const std::string problem = option.problem ? option.problem(item) : "";
            !problem.empty())
          throw CLI::ValidationError(flag, problem);
      return take(items);
    }
    const bool negative = !(option.range && option.range->low >= 0);
    const std::vector<int> numbers = parse_numbers(flag, list, negative, option.item);
    take(std::vector<long long>(numbers.begin(), numbers.end()));
  };
  return command.add_option_function<std::string>(flag, parse, option.help);
}

}  // namespace

CLI::Option* add_option_flag(CLI::App& command, const RequestOption& option,
                             const std::string& flag, Take take) {
  const std::string& help = option.help;
  CLI::Option* added = nullptr;
  switch (option.type) {
    case OptionType::kBoolean:
      return command.add_flag_callback(
          flag, [take] { take(true); }, help);
    case OptionType::kInteger:
      added = command.add_option_function<int>(
          flag, [take](int value) { take(static_cast<long long>(value)); }, help);
      added->check(range_check<int>(option, INT_MIN, INT_MAX));
      break;
    case OptionType::kUnsigned:
      added = command.add_option_function<uint64_t>(
          flag, [take](uint64_t value) { take(value); }, help);
      added->check(range_check<uint64_t>(option, 0, UINT64_MAX));
      break;
    case OptionType::kNumber:  // read as the field's float, as CLI11 reads one
      added = command.add_option_function<float>(
          flag, [take](float value) { take(static_cast<double>(value)); }, help);
      added->check(range_check<float>(option, -FLT_MAX, FLT_MAX));
      break;
    case OptionType::kText:
      added = command.add_option_function<std::string>(
          flag, [take](const std::string& text) { take(text); }, help);
      if (option.problem)
        added->check(
            CLI::Validator([&option](std::string& text) { return option.problem(text); }, ""));
      break;
    case OptionType::kIntegerList:
    case OptionType::kTextList:
      added = add_list(command, option, flag, take);
      break;
  }
  added->type_name(option.value_name);
  if (!option.shown_default.empty()) added->default_str(option.shown_default);
  return added;
}

void RequestFlags::add(const RequestOption& option) {
  const std::string flag = field_name(option.name, FieldSpelling::kOption);
  Request& request = request_;
  // The name typed is kept where the row says, so that messages repeat it.
  const auto given_as = [&option, &request](const std::string& name) {
    return [&option, &request, name](const OptionValue& value) {
      option.set(request, value);  // even "" for --ablate-heads: names no head, a usage error
      if (option.named_in) request.*option.named_in = name;
    };
  };
  CLI::Option* added = add_option_flag(command_, option, flag, given_as(flag));
  if (option.alias.empty()) return;
  // The older name: its own flag rather than a second name of this one, so that a message
  // repeats the name the user typed.
  const std::string old = field_name(option.alias, FieldSpelling::kOption);
  add_option_flag(command_, option, old, given_as(old))
      ->description("the older name of " + flag)
      ->excludes(added);
}

void RequestFlags::add_through(const std::string& name) {
  const std::vector<RequestOption>& options = request_options();
  while (next_ < options.size()) {
    const RequestOption& option = options[next_++];
    if (has_flag(option, request_.kind)) add(option);
    if (option.name == name) return;
  }
}

void RequestFlags::finish() {
  add_through("");
  for (const RequestOption& option : request_options())
    if (has_flag(option, request_.kind) && !option.needs.empty())
      command_.get_option(field_name(option.name, FieldSpelling::kOption))
          ->needs(command_.get_option(field_name(option.needs, FieldSpelling::kOption)));
}

void add_compute_type_option(CLI::App& command, std::string& target) {
  const std::vector<RequestOption>& options = request_options();
  for (const RequestOption& option : options)
    if (option.name == "compute_type")
      add_option_flag(command, option, "--compute-type", [&target](const OptionValue& value) {
        target = std::get<std::string>(value);
      });
}

}  // namespace minimt::cli
