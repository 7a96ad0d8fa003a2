// Word alignments from cross-attention: SentencePiece pieces are merged back into words, the
// piece-level weights into word-level weights, and each word is linked to its best partner.
// Everything here but align_translation() works on plain vectors, independent of any model.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "minimt/engine/attention_record.h"

namespace minimt {

class Model;
struct Translation;

// A word: its text (the pieces joined, without the word-start mark) and the indices of its
// pieces in the piece sequence it came from.
struct Word {
  std::string text;
  std::vector<int> pieces;
};

// The SentencePiece word-start mark "▁" (U+2581), in UTF-8.
inline constexpr const char* kWordStart = "\xE2\x96\x81";

// Groups pieces into words: a piece starting with "▁" begins a word, any other piece continues
// the current word (or begins the first one). Pieces whose `special` flag is set (eos, bos, pad)
// belong to no word. With `special` empty, the pieces "<s>", "</s>" and "<pad>" are special.
// A lone "▁" begins a word and contributes no text. The words are the whitespace-separated
// words of the text the pieces spell (SentencePiece marks every space with "▁", and the
// Translator turns all Unicode white space into spaces before tokenizing), so word i of a
// source is split_words(source)[i] (text_input.h): its i-th field split on the same white space
// set (tab, NBSP, U+3000, ...), punctuation attached.
std::vector<Word> group_words(const std::vector<std::string>& pieces,
                              const std::vector<bool>& special = {});

// Row-major [rows][cols] weights.
struct WeightMatrix {
  int rows = 0, cols = 0;
  std::vector<float> values;
  WeightMatrix() = default;
  WeightMatrix(int r, int c) : rows(r), cols(c), values(static_cast<size_t>(r) * c, 0.0f) {}
  float& at(int r, int c) { return values[static_cast<size_t>(r) * cols + c]; }
  float at(int r, int c) const { return values[static_cast<size_t>(r) * cols + c]; }
};

// Word-level weights from piece-level cross-attention `pieces` [target pieces][source pieces]:
// the weight of (target word u, source word w) is the mean over u's pieces of the sum over w's
// pieces. A source word's weight is then the attention mass it receives, a target word's the
// average over the steps that produced it. Result: [target words][source words].
WeightMatrix merge_to_words(const WeightMatrix& pieces, const std::vector<Word>& target_words,
                            const std::vector<Word>& source_words);

enum class AlignRule {
  kBestSource,     // each target word -> its highest-weight source word (every target word linked)
  kBestTarget,     // each source word -> its highest-weight target word (every source word linked)
  kIntersection,   // the links both rules agree on (fewer, surer links)
  kUnion,          // the links of either rule (a word may link to several)
  kGrowDiagFinal,  // Koehn et al.'s symmetrisation: the intersection, grown with neighbouring
                   // union links, then union links of still unaligned words
};
const char* to_string(AlignRule rule);
AlignRule parse_align_rule(const std::string& name);  // throws Error on an unknown name
// Every rule's name, in the enum's order (for option checking and help texts).
const std::vector<std::string>& align_rule_names();
// The rule with the lowest alignment error rate on the shipped model's held-out gold links
// (docs/attention-view.md, tools/model/evaluate_alignment.py): union, 1.1% in the last layer.
inline constexpr AlignRule kDefaultAlignRule = AlignRule::kUnion;

// A link (source word, target word).
using Link = std::pair<int, int>;

// Links from word-level weights [target words][source words]; ties go to the lowest index.
// Sorted by source word, then target word.
std::vector<Link> align(const WeightMatrix& words, AlignRule rule = kDefaultAlignRule);

// "0-0 1-2 2-1": Pharaoh format, source index first.
std::string to_pharaoh(const std::vector<Link>& links);

// Which cross-attention an alignment reads.
struct AlignmentOptions {
  int layer = -1;          // decoder layer; negative counts from the end (-1: the last one)
  std::vector<int> heads;  // empty: all heads
  AlignRule rule = kDefaultAlignRule;
  // Not empty: every head the alignment averages is masked (--mask-heads), so the averaged
  // cross-attention is all zeros and no link means anything; align_translation gives none.
  // Says why, for the user.
  std::string no_links;
};

// Throws Error unless the layer and heads exist in a model with these dimensions; returns the
// layer's index (from 0).
int check_alignment_options(const AlignmentOptions& options, int decoder_layers, int heads);

// The cross-attention of one decoder layer averaged over `heads` (empty: all):
// [decoder steps][source pieces]. Throws Error if the layer or a head does not exist.
WeightMatrix average_cross_attention(const AttentionRecord& record, int layer,
                                     const std::vector<int>& heads);

struct WordAlignment {
  std::vector<Word> source_words, target_words;
  WeightMatrix weights;     // [target words][source words]
  std::vector<Link> links;  // sorted by source word, then target word
};

// Everything from piece-level cross-attention [target pieces][source pieces].
WordAlignment align_pieces(const std::vector<std::string>& source_pieces,
                           const std::vector<bool>& source_special,
                           const std::vector<std::string>& target_pieces,
                           const std::vector<bool>& target_special, const WeightMatrix& cross,
                           AlignRule rule = kDefaultAlignRule);

// The alignment of one translation (needs translation.attention): source words from the
// pieces the encoder read, target words from the generated pieces; eos, bos and pad are left
// out. A failed or blank sentence has no words and no links.
WordAlignment align_translation(const Translation& translation, const Model& model,
                                const AlignmentOptions& options = {});

}  // namespace minimt
