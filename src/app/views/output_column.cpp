#include "app/views/output_column.h"

namespace minimt::view {

const char* output_column_name(const DumpSentence& s) {
  if (s.given_tokens <= 0) return "predicted";
  if (static_cast<size_t>(s.given_tokens) >= s.output_tokens.size()) return "target (given)";
  return "given, then predicted";
}

const std::pair<std::string, float>* model_choice(const DumpSentence& s, size_t i) {
  if (!output_given(s, i) || i >= s.alternatives.size() || s.alternatives[i].empty() ||
      i >= s.output_tokens.size())
    return nullptr;
  const auto& best = s.alternatives[i].front();
  return best.first == s.output_tokens[i] ? nullptr : &best;
}

}  // namespace minimt::view
