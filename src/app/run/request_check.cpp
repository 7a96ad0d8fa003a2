// check_request: every check of a Request that needs no model, in one place (request.h).

#include <random>
#include <sstream>
#include <type_traits>
#include <utility>

#include "minimt/app/io/usable_cores.h"
#include "minimt/app/run/request.h"
#include "minimt/app/run/request_options.h"

namespace minimt {
namespace {

namespace limits = request_limits;

// Numbers in messages as people write them: 0.001 rather than 0.001000, 1048576 whole.
template <typename Number>
std::string number_text(Number value) {
  if constexpr (std::is_integral<Number>::value) return std::to_string(value);
  std::ostringstream text;
  text << value;
  return text.str();
}

class Checker {
 public:
  explicit Checker(FieldSpelling spelling) : spelling_(spelling) {}

  std::string name(const std::string& field) const { return field_name(field, spelling_); }

  template <typename Number>
  void range(const std::string& field, Number value, Number low, Number high) const {
    if (!(value >= low && value <= high))
      fail(field, name(field) + ": " + number_text(value) + " is not in [" + number_text(low) +
                      ", " + number_text(high) + "]");
  }

  void problem(const std::string& field, const std::string& problem) const {
    if (!problem.empty()) fail(field, name(field) + ": " + problem);
  }

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    throw RequestError(field, message);
  }

 private:
  FieldSpelling spelling_;
};

// A value as its row of the table says: a number in its range (compared in the field's type),
// each item of a list, a text (an empty one is the default).
void check_value(const RequestOption& option, const OptionValue& value, const Checker& check) {
  const std::string& field = option.name;
  const std::optional<OptionRange>& range = option.range;
  switch (option.type) {
    case OptionType::kInteger:
      if (range)
        check.range(field, std::get<long long>(value), static_cast<long long>(range->low),
                    static_cast<long long>(range->high));
      break;
    case OptionType::kNumber:
      if (range)
        check.range(field, static_cast<float>(std::get<double>(value)),
                    static_cast<float>(range->low), static_cast<float>(range->high));
      break;
    case OptionType::kText:
      if (option.problem && !std::get<std::string>(value).empty())
        check.problem(field, option.problem(std::get<std::string>(value)));
      break;
    case OptionType::kTextList:
      if (option.problem)
        for (const std::string& item : std::get<std::vector<std::string>>(value))
          check.problem(field, option.problem(item));
      break;
    case OptionType::kIntegerList:
      for (long long item : std::get<std::vector<long long>>(value))
        if (range && !(item >= range->low && item <= range->high))
          check.problem(field, "'" + std::to_string(item) + "' is not " + option.item);
      break;
    case OptionType::kUnsigned:
    case OptionType::kBoolean:
      break;
  }
}

void check_values(const Request& request, const Checker& check) {
  for (const RequestOption& option : request_options())
    if (const std::optional<OptionValue> value = option.get(request))
      check_value(option, *value, check);
}

// The combinations no single value can refuse on its own.
void check_combinations(const Request& request, const Checker& check) {
  const SearchSettings& s = request.search;
  const std::string beam = check.name("beam_size") + " " + std::to_string(s.beam_size);
  if (s.n_best && *s.n_best > s.beam_size)
    check.fail("n_best", check.name("n_best") + " " + std::to_string(*s.n_best) + " is more than " +
                             beam + ": a beam holds at most its size");
  if (s.sample && s.beam_size > 1)
    check.fail("sample",
               check.name("sample") + " draws one hypothesis; it cannot be combined with " + beam);
  // (The CLI says so as it parses; a JSON body says it here.)
  if (s.seed && !s.sample)
    check.fail("seed", check.name("seed") + " seeds the draws of " + check.name("sample") +
                           ", which this request does not ask for");
  const std::string batch = check.name("batch_size") + " " + std::to_string(request.batch_size);
  if (static_cast<long long>(request.batch_size) * s.beam_size > limits::kMaxBeamsPerBatch)
    check.fail("batch_size", batch + " times " + beam + " is more than " +
                                 std::to_string(limits::kMaxBeamsPerBatch) + " hypotheses at once");
  const RecordSettings& r = request.record;
  // Text output has one translation per line: the alternatives would be dropped unseen.
  if (r.alternatives > 0 && request.format == OutputFormat::kText)
    check.fail("alternatives", check.name("alternatives") +
                                   " lists tokens in JSON Lines output only (text has one "
                                   "translation per line): add " +
                                   check.name("format") + " jsonl");
  const std::pair<const char*, bool> additions[] = {{"rollout", r.rollout},
                                                    {"dump_scores", r.dump_scores},
                                                    {"dump_vectors", r.dump_vectors},
                                                    {"dump_norms", r.dump_norms},
                                                    {"logit_lens", r.logit_lens > 0}};
  for (const auto& [field, asked] : additions)
    if (asked && !r.dump_attention && !r.view)
      check.fail(field, check.name(field) + " adds to " + check.name("dump_attention") + " or " +
                            check.name("view") + ": give one of them");
  // Attributions are written in JSON Lines, the dump and the page; text has no room for them.
  if (!r.attribute.empty() && !r.dump_attention && !r.view &&
      request.format != OutputFormat::kJsonl)
    check.fail("attribute", check.name("attribute") + " writes its numbers in " +
                                check.name("format") + " jsonl, " + check.name("dump_attention") +
                                " or " + check.name("view") + ": give one of them");
  // Lines in flight are at most 4 batches per thread (batch_runner.cpp): bound them, so that a
  // typo (batch_size 65536, threads 1024) is refused rather than run out of memory.
  const int threads = request_threads(request);
  if (static_cast<long long>(threads) * request.batch_size > limits::kMaxLinesPerRound)
    check.fail("threads", check.name("threads") + " " + std::to_string(threads) + " times " +
                              batch + " is more than " + std::to_string(limits::kMaxLinesPerRound) +
                              " lines at once");
}

}  // namespace

std::string field_name(const std::string& field, FieldSpelling spelling) {
  if (spelling == FieldSpelling::kJson) return field;
  std::string option = "--" + field;
  for (char& c : option)
    if (c == '_') c = '-';
  return option;
}

void check_request(const Request& request, FieldSpelling spelling) {
  const Checker check(spelling);
  check_values(request, check);
  check_combinations(request, check);
}

bool complete_seed(Request& request) {
  if (!request.search.sample || request.search.seed) return false;
  std::random_device device;
  request.search.seed = (static_cast<uint64_t>(device()) << 32 | device()) >> 1;
  return true;
}

int request_threads(const Request& request) {
  return request.threads > 0 ? request.threads : usable_cores();
}

}  // namespace minimt
