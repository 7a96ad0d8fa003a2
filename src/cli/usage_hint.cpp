#include "cli/usage_hint.h"

#include <algorithm>
#include <vector>

namespace minimt::cli {
namespace {

// The Levenshtein distance: insertions, deletions and substitutions.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      current[j] = std::min(
          {previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// The subcommand nearest to `word`, or "" when none is within two edits.
std::string nearest_subcommand(const CLI::App& app, const std::string& word) {
  constexpr size_t kMostEdits = 2;
  std::string best;
  size_t best_distance = kMostEdits + 1;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const size_t d = edit_distance(word, sub->get_name());
    if (d < best_distance) {
      best = sub->get_name();
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

std::string usage_hint(const CLI::App& app, int argc, char** argv) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->parsed()) return "Run 'minimt " + sub->get_name() + " --help' for usage.";
  std::string hint;
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    const std::string nearest = nearest_subcommand(app, word);
    if (!nearest.empty() && nearest != word)
      hint = "'" + word + "' is not a subcommand. Did you mean '" + nearest + "'?\n";
  }
  return hint + "Run 'minimt --help' for usage.";
}

}  // namespace minimt::cli
