// How a checkpoint's authors meant it to be run (format v2 key "generation", written by
// tools/convert_hf.py from generation_config.json or config.json): the model's defaults, which
// the command line overrides, and the rules every step applies. Absent: minimt's own defaults.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "minimt/engine/search.h"

namespace minimt {

// The settings a request may override; unset ones leave minimt's defaults.
struct GenerationSettings {
  std::optional<int> beam_size;
  std::optional<float> length_penalty;
  std::optional<EarlyStopping> early_stopping;
  std::optional<int> max_length;  // output tokens, eos included (minimt's --max-length)
  std::optional<int> no_repeat_ngram_size;
  std::optional<float> repetition_penalty;
};

// A task of T5's task_specific_params: the source prefix it puts before the text, and its own
// settings over the block's.
struct GenerationTask {
  std::string name;
  std::vector<int> source_prefix;
  GenerationSettings settings;
};

struct GenerationConfig {
  bool present = false;
  std::string origin;  // "from": where the converter found the settings
  GenerationSettings settings;
  BeamRules beam_rules = BeamRules::kMinimt;  // "search_rules"
  int forced_last_token = -1;                 // generate()'s forced_eos_token_id
  std::vector<std::vector<int>> bad_words;
  std::vector<GenerationTask> tasks;
  // The task of that name; throws Error naming the model's tasks when there is none.
  const GenerationTask& find_task(const std::string& name) const;
};

}  // namespace minimt
