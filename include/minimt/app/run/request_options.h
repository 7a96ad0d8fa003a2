// The options of a request, described once: each named as its long flag with `_` for `-`
// (beam_size is --beam-size), bound to its field of Request, with its type, the commands it
// applies to, its range, how --help shows it and its help. Everything else derives from it:
// - the command line's flags of translate and score (src/cli/request_flags.cpp), their checks,
//   value names, defaults and help, and so the man page and the shell completions, which are
//   generated from --help;
// - minimt serve's JSON reader and GET /v1/options (src/serve/);
// - check_request's checks of single values (request.h): the ranges, the items of lists, the
//   texts with a problem function. (The combinations are check_request's own.)
// A new option is one row in request_options.cpp; its effect goes in request_plan.cpp or
// request_run.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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
  kForAttention = 4,  // the attention dump or page only (translate's and score's flags)
  kNotServed = 8,     // the command line's only (the server has its own threads, ...)
  kNoFlag = 16,       // the server's only: the command line has a flag of its own (--view FILE)
};

using OptionValue = std::variant<long long, uint64_t, double, bool, std::string,
                                 std::vector<long long>, std::vector<std::string>>;

// The values a number (or each item of an integer list) may take, both ends included.
struct OptionRange {
  double low, high;
};

struct RequestOption {
  std::string name;   // "beam_size": the JSON field; the flag is --beam-size (field_name)
  std::string alias;  // an older name that still works ("mask_heads"), or ""
  OptionType type;
  unsigned uses;
  // Numbers: checked against it (in the field's own type, float or int) and shown by --help;
  // unset: any value of the type. Integer lists: each item from `low` (negative items are
  // refused when low >= 0).
  std::optional<OptionRange> range;
  std::string value_name;     // the flag's value in --help: "N", "K", "LIST"; "" for a boolean
  std::string shown_default;  // the default as --help shows it; "": none shown
  std::string needs;          // the option it is read with ("sample"): the flag alone is refused
  std::string item;           // integer lists: what an item is ("a head number (...)")
  // The problem with a text (each item of a text list), "" for none; empty texts are the
  // default and not checked by check_request. Unset: any text.
  std::function<std::string(const std::string&)> problem;
  // Where the request keeps the name the option was given by (its alias or its name, spelled
  // as the front end spells it), so that messages repeat it; nullptr: nowhere.
  std::string Request::*named_in = nullptr;
  // The options of a request that shows it, as a JSON object ({"beam_size": 4, "n_best": 2}):
  // what the docs show and the tests send; "" for an option that is not served.
  std::string example;
  std::string help;  // spelled for the command line (--beam-size); option_help respells it
  // The field's value (nullopt: an optional field unset) and how a value sets it; the value has
  // the option's type (an integer list's items fit in int: the caller checks that).
  std::function<std::optional<OptionValue>(const Request&)> get;
  std::function<void(Request&, const OptionValue&)> set;
};

const std::vector<RequestOption>& request_options();

// Whether `option` applies to `use` for the server: translate's options also apply to the
// attention requests; kNotServed options apply to none.
bool serves(const RequestOption& option, OptionUse use);
// Whether the command line has a flag for `option` in a command of `kind` (translate's flags
// include the attention options, and so do score's).
bool has_flag(const RequestOption& option, RequestKind kind);

// The served option named `name` (or its alias) that applies to `use`; nullptr when none does.
const RequestOption* find_request_option(const std::string& name, OptionUse use);

const char* option_type_name(OptionType type);  // "integer", "list of strings", ...

// The option's help with every --flag spelled as `spelling` spells fields (beam_size).
std::string option_help(const RequestOption& option, FieldSpelling spelling);

// A value as --help and messages show it: 256, 0.001, -1, "union".
std::string option_value_text(const OptionValue& value);

}  // namespace minimt
