// apply_generation_defaults (generation_defaults.h).
#include "minimt/app/run/generation_defaults.h"

#include <sstream>

namespace minimt {
namespace {

std::string setting_text(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

std::string apply_generation_defaults(Request& request, const ModelConfig& config,
                                      const std::function<bool(const std::string&)>& given,
                                      FieldSpelling spelling) {
  const GenerationConfig& g = config.generation;
  std::string taken;
  if (request.kind != RequestKind::kTranslate) return taken;
  const GenerationTask* task = nullptr;
  try {
    if (!request.search.task.empty()) task = &g.find_task(request.search.task);
  } catch (const Error& e) {
    throw RequestError("task", field_name("task", spelling) + ": " + e.what());
  }
  if (!g.present) return taken;
  const std::string origin = (task ? "task " + task->name + ", " : std::string()) +
                             (g.origin.empty() ? "the model" : g.origin);
  SearchSettings& s = request.search;
  // The task's value, else the block's; applied where the command line has none.
  auto take = [&](const char* name, auto field, auto& target, auto text) {
    auto value = task && (task->settings.*field) ? task->settings.*field : g.settings.*field;
    if (!value || given(name)) return;
    target = *value;
    taken += (taken.empty() ? "" : ", ") + field_name(name, spelling) + " " + text(*value);
  };
  auto integer = [](int v) { return std::to_string(v); };
  auto real = [](float v) { return setting_text(v); };
  // Sampling draws one path: the model's beams are for searching.
  if (!s.sample) take("beam_size", &GenerationSettings::beam_size, s.beam_size, integer);
  take("length_penalty", &GenerationSettings::length_penalty, s.length_penalty, real);
  take("max_length", &GenerationSettings::max_length, s.max_length, integer);
  take("no_repeat_ngram_size", &GenerationSettings::no_repeat_ngram_size, s.no_repeat_ngram_size,
       integer);
  take("repetition_penalty", &GenerationSettings::repetition_penalty, s.repetition_penalty, real);
  return taken.empty() ? taken : taken + " (from " + origin + ")";
}

}  // namespace minimt
