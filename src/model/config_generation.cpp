// Format v2 key "generation" (docs/model-format.md, "Generation settings"): every value
// range-checked and named in errors as generation.KEY (generation.tasks.NAME.KEY in a task).
#include <cmath>

#include "minimt/base/error.h"
#include "minimt/model/config.h"
#include "model/config_reader.h"

namespace minimt {
namespace {

constexpr size_t kMaxBadWords = 4096;
constexpr size_t kMaxWordTokens = 64;
constexpr size_t kMaxTasks = 64;
constexpr size_t kMaxNameBytes = 100;
constexpr size_t kMaxOriginBytes = 300;
constexpr long long kMaxNgram = 1024;
constexpr double kMaxRepetitionPenalty = 100.0;
// The command line's ranges (app's request_limits), which the model floor cannot include.
constexpr long long kMaxBeamSize = 256;
constexpr double kMaxLengthPenalty = 10.0;
constexpr long long kMaxLength = 1 << 20;

const std::vector<std::string> kTaskKeys = {
    "source_prefix_tokens", "beam_size",         "length_penalty", "early_stopping", "max_length",
    "no_repeat_ngram_size", "repetition_penalty"};
const std::vector<std::string> kBlockKeys = {"from",
                                             "search_rules",
                                             "forced_last_token",
                                             "bad_words",
                                             "tasks",
                                             "beam_size",
                                             "length_penalty",
                                             "early_stopping",
                                             "max_length",
                                             "no_repeat_ngram_size",
                                             "repetition_penalty"};

float number(const ConfigReader& reader, const nlohmann::json& value, const std::string& key,
             double low, double high, bool low_open) {
  const bool ok = value.is_number() && std::isfinite(value.get<double>()) &&
                  (low_open ? value.get<double>() > low : value.get<double>() >= low) &&
                  value.get<double>() <= high;
  if (!ok)
    reader.fail(key, "must be a number " + std::string(low_open ? "above " : "from ") +
                         nlohmann::json(low).dump() + (low_open ? " and at most " : " to ") +
                         nlohmann::json(high).dump() + ", got " + describe_json(value));
  return static_cast<float>(value.get<double>());
}

std::string text(const ConfigReader& reader, const nlohmann::json& value, const std::string& key,
                 size_t limit) {
  std::string s = reader.string(value, key);
  if (s.size() > limit)
    reader.fail(key, "is " + std::to_string(s.size()) + " bytes; at most " + std::to_string(limit) +
                         " are allowed");
  return s;
}

std::vector<int> ids(const ConfigReader& reader, const nlohmann::json& value,
                     const std::string& key, size_t low, size_t high, int vocab_size) {
  if (!value.is_array() || value.size() < low || value.size() > high)
    reader.fail(key, "must be an array of " + std::to_string(low) + " to " + std::to_string(high) +
                         " token ids, got " + describe_json(value));
  std::vector<int> list;
  for (size_t i = 0; i < value.size(); ++i)
    list.push_back(static_cast<int>(
        reader.integer(value[i], key + "[" + std::to_string(i) + "]", 0, vocab_size - 1)));
  return list;
}

// The keys a request may override, where `object` (named `where`) has them.
GenerationSettings read_settings(const ConfigReader& reader, const nlohmann::json& object,
                                 const std::string& where) {
  GenerationSettings s;
  auto key = [&](const char* name) { return where + "." + name; };
  if (object.contains("beam_size"))
    s.beam_size =
        static_cast<int>(reader.integer(object["beam_size"], key("beam_size"), 1, kMaxBeamSize));
  if (object.contains("length_penalty"))
    s.length_penalty = number(reader, object["length_penalty"], key("length_penalty"),
                              -kMaxLengthPenalty, kMaxLengthPenalty, false);
  if (object.contains("early_stopping")) {
    const auto& v = object["early_stopping"];
    if (v.is_boolean())
      s.early_stopping = v.get<bool>() ? EarlyStopping::kTrue : EarlyStopping::kFalse;
    else if (v.is_string() && v.get<std::string>() == "never")
      s.early_stopping = EarlyStopping::kNever;
    else
      reader.fail(key("early_stopping"),
                  "must be true, false or \"never\", got " + describe_json(v));
  }
  if (object.contains("max_length"))
    s.max_length =
        static_cast<int>(reader.integer(object["max_length"], key("max_length"), 1, kMaxLength));
  if (object.contains("no_repeat_ngram_size"))
    s.no_repeat_ngram_size = static_cast<int>(
        reader.integer(object["no_repeat_ngram_size"], key("no_repeat_ngram_size"), 0, kMaxNgram));
  if (object.contains("repetition_penalty"))
    s.repetition_penalty = number(reader, object["repetition_penalty"], key("repetition_penalty"),
                                  0.0, kMaxRepetitionPenalty, true);
  return s;
}

void read_tasks(const ConfigReader& reader, const nlohmann::json& value, const ModelConfig& c,
                GenerationConfig& g) {
  if (!value.is_object() || value.size() > kMaxTasks)
    reader.fail("generation.tasks", "must be an object of at most " + std::to_string(kMaxTasks) +
                                        " tasks, got " + describe_json(value));
  for (const auto& [name, task] : value.items()) {
    if (name.empty() || name.size() > kMaxNameBytes || printable(name) != name)
      reader.fail("generation.tasks." + printable(name),
                  "is not a task name (1 to 100 printable bytes)");
    const std::string where = "generation.tasks." + name;
    if (!task.is_object()) reader.fail(where, "must be an object");
    reader.refuse_unknown(task, where, kTaskKeys);
    GenerationTask t{name, {}, read_settings(reader, task, where)};
    if (!task.contains("source_prefix_tokens"))
      reader.fail(where + ".source_prefix_tokens", "is missing");
    t.source_prefix = ids(reader, task["source_prefix_tokens"], where + ".source_prefix_tokens", 0,
                          64, c.source_vocab_size);
    if (static_cast<long long>(t.source_prefix.size() + c.source_suffix.size()) >= c.max_positions)
      reader.fail(where + ".source_prefix_tokens", "leaves no room in max_positions for the text");
    g.tasks.push_back(std::move(t));
  }
}

}  // namespace

const GenerationTask& GenerationConfig::find_task(const std::string& name) const {
  std::string listed;
  for (const GenerationTask& task : tasks) {
    if (task.name == name) return task;
    listed += (listed.empty() ? "" : ", ") + task.name;
  }
  throw Error("'" + printable(name) + "' is not a task of the model: it has " +
              (listed.empty() ? std::string("no tasks") : "the tasks " + listed) +
              " (minimt info lists them)");
}

void read_generation(const ConfigReader& reader, ModelConfig& c) {
  const auto& block = reader.require("generation");
  if (!block.is_object()) reader.fail("generation", "must be an object");
  reader.refuse_unknown(block, "generation", kBlockKeys);
  GenerationConfig& g = c.generation;
  g.present = true;
  if (block.contains("from"))
    g.origin = text(reader, block["from"], "generation.from", kMaxOriginBytes);
  if (block.contains("search_rules")) {
    const std::string rules = reader.string(block["search_rules"], "generation.search_rules");
    if (rules != "minimt" && rules != "transformers")
      reader.fail("generation.search_rules",
                  "must be \"minimt\" or \"transformers\", got \"" + printable(rules) + '"');
    g.beam_rules = rules == "transformers" ? BeamRules::kTransformers : BeamRules::kMinimt;
  }
  if (block.contains("forced_last_token"))
    g.forced_last_token = static_cast<int>(reader.integer(
        block["forced_last_token"], "generation.forced_last_token", 0, c.target_vocab_size - 1));
  if (block.contains("bad_words")) {
    const auto& words = block["bad_words"];
    if (!words.is_array() || words.size() > kMaxBadWords)
      reader.fail("generation.bad_words", "must be an array of at most " +
                                              std::to_string(kMaxBadWords) +
                                              " token sequences, got " + describe_json(words));
    for (size_t i = 0; i < words.size(); ++i)
      g.bad_words.push_back(ids(reader, words[i], "generation.bad_words[" + std::to_string(i) + "]",
                                1, kMaxWordTokens, c.target_vocab_size));
  }
  g.settings = read_settings(reader, block, "generation");
  if (block.contains("tasks")) read_tasks(reader, block["tasks"], c, g);
}

}  // namespace minimt
