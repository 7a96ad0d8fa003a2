#include "minimt/app/analysis/alignment.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "minimt/app/translate/translator.h"
#include "minimt/base/enum_names.h"
#include "minimt/base/error.h"
#include "minimt/base/from_end.h"
#include "minimt/model/model.h"

namespace minimt {

std::vector<Word> group_words(const std::vector<std::string>& pieces,
                              const std::vector<bool>& special) {
  static const size_t mark = std::strlen(kWordStart);
  std::vector<Word> words;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& piece = pieces[i];
    bool skip = special.empty() ? (piece == "<s>" || piece == "</s>" || piece == "<pad>")
                                : (i < special.size() && special[i]);
    if (skip) continue;
    bool starts = piece.compare(0, mark, kWordStart) == 0;
    if (starts || words.empty()) words.emplace_back();
    words.back().text += starts ? piece.substr(mark) : piece;
    words.back().pieces.push_back(static_cast<int>(i));
  }
  return words;
}

WeightMatrix merge_to_words(const WeightMatrix& pieces, const std::vector<Word>& target_words,
                            const std::vector<Word>& source_words) {
  auto check = [](const std::vector<Word>& words, int limit, const char* side) {
    for (const Word& word : words)
      for (int p : word.pieces)
        if (p < 0 || p >= limit)
          throw Error(std::string("alignment: ") + side + " piece " + std::to_string(p) +
                      " is outside the attention matrix (" + std::to_string(limit) + ")");
  };
  check(target_words, pieces.rows, "target");
  check(source_words, pieces.cols, "source");
  const int rows = static_cast<int>(target_words.size());
  const int cols = static_cast<int>(source_words.size());
  WeightMatrix words(rows, cols);
  for (int u = 0; u < rows; ++u) {
    const std::vector<int>& steps = target_words[u].pieces;
    for (int w = 0; w < cols; ++w) {
      double total = 0.0;
      for (int t : steps)
        for (int s : source_words[w].pieces) total += pieces.at(t, s);
      words.at(u, w) = steps.empty() ? 0.0f : static_cast<float>(total / steps.size());
    }
  }
  return words;
}

namespace {

// In the enum's order.
constexpr EnumName<AlignRule> kAlignRuleNames[] = {{"best-source", AlignRule::kBestSource},
                                                   {"best-target", AlignRule::kBestTarget},
                                                   {"intersection", AlignRule::kIntersection},
                                                   {"union", AlignRule::kUnion},
                                                   {"grow-diag-final", AlignRule::kGrowDiagFinal}};

}  // namespace

const char* to_string(AlignRule rule) {
  return enum_name(kAlignRuleNames, rule);
}

const std::vector<std::string>& align_rule_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& entry : kAlignRuleNames) all.push_back(entry.first);
    return all;
  }();
  return names;
}

AlignRule parse_align_rule(const std::string& name) {
  AlignRule rule = kDefaultAlignRule;
  if (!enum_value(kAlignRuleNames, name, rule))
    throw Error("unknown alignment rule '" + name + "' (use one of " +
                enum_name_list(kAlignRuleNames) + ")");
  return rule;
}

namespace {

// Each target word's best source word and each source word's best target word, as (source,
// target) links sorted by source, then target; ties go to the lowest index.
struct BestLinks {
  std::vector<Link> by_target, by_source;
};

BestLinks best_links(const WeightMatrix& words) {
  BestLinks best;
  if (words.rows == 0 || words.cols == 0) return best;
  for (int u = 0; u < words.rows; ++u) {
    int top = 0;
    for (int w = 1; w < words.cols; ++w)
      if (words.at(u, w) > words.at(u, top)) top = w;
    best.by_target.emplace_back(top, u);
  }
  for (int w = 0; w < words.cols; ++w) {
    int top = 0;
    for (int u = 1; u < words.rows; ++u)
      if (words.at(u, w) > words.at(top, w)) top = u;
    best.by_source.emplace_back(w, top);
  }
  std::sort(best.by_target.begin(), best.by_target.end());
  std::sort(best.by_source.begin(), best.by_source.end());
  return best;
}

// A set of links over [sources][targets], with which words have one.
class LinkGrid {
 public:
  LinkGrid(int sources, int targets)
      : targets_(targets),
        cells_(static_cast<size_t>(sources) * targets, false),
        source_linked_(sources, false),
        target_linked_(targets, false) {}
  bool inside(int s, int t) const {
    return s >= 0 && t >= 0 && s < static_cast<int>(source_linked_.size()) && t < targets_;
  }
  bool has(int s, int t) const { return inside(s, t) && cells_[index(s, t)]; }
  // Koehn's condition for adding a link: new, and one of its words still without a link.
  bool may_add(int s, int t) const {
    return !has(s, t) && (!source_linked_[s] || !target_linked_[t]);
  }
  void add(int s, int t) {
    cells_[index(s, t)] = true;
    source_linked_[s] = target_linked_[t] = true;
  }
  std::vector<Link> links() const {
    std::vector<Link> out;
    for (size_t i = 0; i < cells_.size(); ++i)
      if (cells_[i])
        out.emplace_back(static_cast<int>(i) / targets_, static_cast<int>(i) % targets_);
    return out;
  }

 private:
  size_t index(int s, int t) const { return static_cast<size_t>(s) * targets_ + t; }
  int targets_;
  std::vector<bool> cells_, source_linked_, target_linked_;
};

// Koehn, Och & Marcu (2003), grow-diag-final: start from the intersection; repeatedly add union
// links next to (or diagonal to) a link, when one of their words has none yet; then, in a final
// pass over the best-source links and then the best-target links, add those that still leave a
// word without a link.
std::vector<Link> grow_diag_final(const BestLinks& best, const std::vector<Link>& both,
                                  const std::vector<Link>& either, int sources, int targets) {
  static const int kNeighbours[8][2] = {{-1, 0},  {0, -1}, {1, 0},  {0, 1},
                                        {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
  LinkGrid in_union(sources, targets), grid(sources, targets);
  for (const Link& link : either) in_union.add(link.first, link.second);
  for (const Link& link : both) grid.add(link.first, link.second);
  for (bool grown = true; grown;) {
    grown = false;
    for (int s = 0; s < sources; ++s)
      for (int t = 0; t < targets; ++t) {
        if (!grid.has(s, t)) continue;
        for (const auto& step : kNeighbours) {
          const int ns = s + step[0], nt = t + step[1];
          if (in_union.has(ns, nt) && grid.may_add(ns, nt)) {
            grid.add(ns, nt);
            grown = true;
          }
        }
      }
  }
  for (const std::vector<Link>* direction : {&best.by_target, &best.by_source})
    for (const Link& link : *direction)
      if (grid.may_add(link.first, link.second)) grid.add(link.first, link.second);
  return grid.links();
}

}  // namespace

std::vector<Link> align(const WeightMatrix& words, AlignRule rule) {
  const BestLinks best = best_links(words);
  std::vector<Link> both, either;
  std::set_intersection(best.by_target.begin(), best.by_target.end(), best.by_source.begin(),
                        best.by_source.end(), std::back_inserter(both));
  std::set_union(best.by_target.begin(), best.by_target.end(), best.by_source.begin(),
                 best.by_source.end(), std::back_inserter(either));
  switch (rule) {
    case AlignRule::kBestSource:
      return best.by_target;
    case AlignRule::kBestTarget:
      return best.by_source;
    case AlignRule::kIntersection:
      return both;
    case AlignRule::kUnion:
      return either;
    case AlignRule::kGrowDiagFinal:
      return grow_diag_final(best, both, either, words.cols, words.rows);
  }
  return best.by_target;
}

std::string to_pharaoh(const std::vector<Link>& links) {
  std::string text;
  for (const Link& link : links) {
    if (!text.empty()) text += ' ';
    text += std::to_string(link.first) + '-' + std::to_string(link.second);
  }
  return text;
}

namespace {

// The layer index (negative counts from the end); throws if a layer or head does not exist.
int resolve_layer(int layer, const std::vector<int>& heads, int layers, int head_count) {
  const int index = index_from_end(layer, layers);
  if (index < 0 || index >= layers)
    throw Error("alignment: decoder layer " + std::to_string(layer) + " does not exist (the " +
                "model has " + std::to_string(layers) + " decoder layers, numbered from 0; " +
                "negative numbers count from the end)");
  for (int h : heads)
    if (h < 0 || h >= head_count)
      throw Error("alignment: head " + std::to_string(h) + " does not exist (the model has " +
                  std::to_string(head_count) + " heads, numbered from 0)");
  return index;
}

}  // namespace

int check_alignment_options(const AlignmentOptions& options, int decoder_layers, int heads) {
  return resolve_layer(options.layer, options.heads, decoder_layers, heads);
}

WeightMatrix average_cross_attention(const AttentionRecord& record, int layer,
                                     const std::vector<int>& heads) {
  const int index = resolve_layer(layer, heads, record.decoder_layers, record.heads);
  std::vector<int> chosen = heads;
  if (chosen.empty())
    for (int h = 0; h < record.heads; ++h) chosen.push_back(h);
  WeightMatrix mean(record.steps(), record.source_length);
  for (int t = 0; t < mean.rows; ++t)
    for (int s = 0; s < mean.cols; ++s) {
      double total = 0.0;
      for (int h : chosen) total += record.cross(index, h, t, s);
      mean.at(t, s) = static_cast<float>(total / chosen.size());
    }
  return mean;
}

WordAlignment align_pieces(const std::vector<std::string>& source_pieces,
                           const std::vector<bool>& source_special,
                           const std::vector<std::string>& target_pieces,
                           const std::vector<bool>& target_special, const WeightMatrix& cross,
                           AlignRule rule) {
  WordAlignment result;
  result.source_words = group_words(source_pieces, source_special);
  result.target_words = group_words(target_pieces, target_special);
  result.weights = merge_to_words(cross, result.target_words, result.source_words);
  result.links = align(result.weights, rule);
  return result;
}

WordAlignment align_translation(const Translation& translation, const Model& model,
                                const AlignmentOptions& options) {
  if (!translation.ok() || translation.output_ids.empty() || translation.source_ids.empty() ||
      !options.no_links.empty())
    return {};
  if (!translation.attention)
    throw Error("alignment: the translation was made without recording attention");
  const SpecialTokens& special = model.config().special;
  auto pieces = [&](const Tokenizer& tokenizer, const std::vector<int>& ids,
                    std::vector<bool>& flags) {
    std::vector<std::string> result;
    for (int id : ids) {
      result.push_back(tokenizer.piece(id));
      flags.push_back(id == special.eos || id == special.bos || id == special.pad);
    }
    return result;
  };
  std::vector<bool> source_special, target_special;
  std::vector<std::string> source =
      pieces(model.source_tokenizer(), translation.source_ids, source_special);
  std::vector<std::string> target =
      pieces(model.target_tokenizer(), translation.output_ids, target_special);
  WeightMatrix cross =
      average_cross_attention(*translation.attention, options.layer, options.heads);
  return align_pieces(source, source_special, target, target_special, cross, options.rule);
}

}  // namespace minimt
