// The options of a request a front end other than the command line may set, described once:
// each named as its long flag with `_` for `-` (beam_size is --beam-size), with its type, the
// kinds of request it applies to, an example, and how a value sets it. minimt serve reads its
// JSON bodies through this table and lists it at GET /v1/options; its tests iterate the table,
// each option against the flag of the same name, so that the server cannot fall behind the CLI.
// The checks of the values are check_request's (request.h), the same for every front end.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "minimt/app/run/request.h"

namespace minimt {

enum class OptionType { kInteger, kUnsigned, kNumber, kBoolean, kText, kIntegerList, kTextList };

// Where an option applies: a bit set.
enum OptionUse : unsigned {
  kForTranslate = 1,  // translate's records (and the attention requests, which translate)
  kForScore = 2,      // score's records
  kForAttention = 4,  // the attention dump or page only
};

using OptionValue = std::variant<long long, uint64_t, double, bool, std::string,
                                 std::vector<long long>, std::vector<std::string>>;

struct RequestOption {
  std::string name;   // "beam_size"
  std::string alias;  // an older name that still works ("mask_heads"), or ""
  OptionType type;
  unsigned uses;
  // The options of a request that shows it, as a JSON object ({"beam_size": 4, "n_best": 2}):
  // what the docs show and the tests send.
  std::string example;
  std::string help;
  // Sets the field; the value has the option's type (an integer list's items fit in int; the
  // caller checks that, check_request the ranges).
  std::function<void(Request&, const OptionValue&)> set;
};

const std::vector<RequestOption>& request_options();

// The option named `name` (or its alias) that applies to `use`; nullptr when none does.
const RequestOption* find_request_option(const std::string& name, OptionUse use);

const char* option_type_name(OptionType type);  // "integer", "list of strings", ...

}  // namespace minimt
