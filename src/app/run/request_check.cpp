// check_request: every check of a Request that needs no model, in one place (request.h).

#include <algorithm>
#include <iterator>
#include <random>
#include <sstream>
#include <utility>

#include "minimt/app/analysis/alignment.h"
#include "minimt/app/io/usable_cores.h"
#include "minimt/app/record/dump_schema.h"
#include "minimt/app/run/request.h"
#include "minimt/app/views/terminal_heatmap.h"
#include "minimt/engine/compute_type.h"

namespace minimt {
namespace {

namespace limits = request_limits;

// Numbers in messages as people write them: 0.001 rather than 0.001000.
std::string number_text(double value) {
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

void check_values(const Request& request, const Checker& check) {
  const SearchSettings& s = request.search;
  check.range("max_length", s.max_length, 0, limits::kMaxLength);
  check.range("beam_size", s.beam_size, 1, limits::kMaxBeamSize);
  if (s.n_best) check.range("n_best", *s.n_best, 1, limits::kMaxBeamSize);
  check.range("length_penalty", s.length_penalty, -limits::kMaxLengthPenalty,
              limits::kMaxLengthPenalty);
  check.range("temperature", s.temperature, limits::kMinTemperature, limits::kMaxTemperature);
  check.range("top_k", s.top_k, 0, limits::kMaxTopK);
  check.range("top_p", s.top_p, limits::kMinTopP, 1.0f);
  check.range("no_repeat_ngram_size", s.no_repeat_ngram_size, 0, limits::kMaxNgram);
  check.range("repetition_penalty", s.repetition_penalty, 1e-6f, limits::kMaxRepetitionPenalty);
  const RecordSettings& r = request.record;
  for (const std::string& type : r.dump_types) check.problem("dump_types", dump_type_problem(type));
  for (int head : r.dump_heads)
    if (head < 0) check.problem("dump_heads", "heads are numbered from 0");
  for (int head : r.align_heads)
    if (head < 0) check.problem("align_heads", "heads are numbered from 0");
  check.problem("align_rule",
                align_rule_problem(r.align_rule.empty() ? default_align_rule() : r.align_rule));
  check.range("alternatives", r.alternatives, 0, limits::kMaxAlternatives);
  check.range("logit_lens", r.logit_lens, 0, limits::kMaxAlternatives);
  if (r.show) {
    try {
      parse_heatmap_choice(*r.show);
    } catch (const Error& e) {
      check.problem("show", e.what());
    }
  }
  if (!request.compute_type.empty()) {
    try {
      parse_compute_type(request.compute_type);
    } catch (const Error& e) {
      check.problem("compute_type", e.what());
    }
  }
  check.range("threads", request.threads, 0, limits::kMaxThreads);
  check.range("batch_size", request.batch_size, 1, limits::kMaxBatchSize);
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

std::string dump_type_problem(const std::string& type) {
  if (dump_schema::find_attention_type(type)) return "";
  std::string names;  // "encoder, decoder or cross"
  const size_t count = std::size(dump_schema::kAttentionTypes);
  for (size_t i = 0; i < count; ++i)
    names += (i == 0           ? ""
              : i + 1 == count ? " or "
                               : ", ") +
             std::string(dump_schema::kAttentionTypes[i].type);
  return "'" + type + "' is not " + names;
}

std::string align_rule_problem(const std::string& rule) {
  try {
    parse_align_rule(rule);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

const char* default_align_rule() {
  return to_string(kDefaultAlignRule);
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
