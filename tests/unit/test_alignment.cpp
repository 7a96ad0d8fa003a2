// Word alignment from cross-attention: pieces to words, piece weights to word weights, links.
#include <algorithm>
#include <catch2/catch.hpp>

#include "minimt/app/analysis/alignment.h"
#include "minimt/base/error.h"

using namespace minimt;

namespace {

const std::string W = kWordStart;  // "▁"

std::vector<std::string> texts(const std::vector<Word>& words) {
  std::vector<std::string> out;
  for (const Word& w : words) out.push_back(w.text);
  return out;
}

WeightMatrix matrix(const std::vector<std::vector<float>>& rows) {
  WeightMatrix m(static_cast<int>(rows.size()),
                 rows.empty() ? 0 : static_cast<int>(rows[0].size()));
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) m.at(r, c) = rows[r][c];
  return m;
}

}  // namespace

TEST_CASE("group_words merges continuation pieces into the word before them", "[alignment]") {
  // "The small girl reads a book." as a SentencePiece model with a small vocabulary cuts it.
  std::vector<std::string> pieces = {W + "The", W + "s", "ma",       "ll", W,
                                     "g",       "i",     "r",        "l",  W + "read",
                                     "s",       W + "a", W + "book", ".",  "</s>"};
  std::vector<Word> words = group_words(pieces);
  CHECK(texts(words) == std::vector<std::string>{"The", "small", "girl", "reads", "a", "book."});
  CHECK(words[1].pieces == std::vector<int>{1, 2, 3});
  CHECK(words[2].pieces == std::vector<int>{4, 5, 6, 7, 8});  // a lone "▁" starts the word
  CHECK(words[5].pieces == std::vector<int>{12, 13});         // punctuation stays attached
  // </s> belongs to no word.
  for (const Word& w : words)
    CHECK(std::find(w.pieces.begin(), w.pieces.end(), 14) == w.pieces.end());
}

TEST_CASE("group_words: pre-tokenised punctuation is a word of its own", "[alignment]") {
  std::vector<Word> words = group_words({W + "dog", W + ".", "</s>"});
  CHECK(texts(words) == std::vector<std::string>{"dog", "."});
}

TEST_CASE("group_words: a first piece without the mark still begins a word", "[alignment]") {
  std::vector<Word> words = group_words({"ab", "c", W + "d"});
  REQUIRE(words.size() == 2);
  CHECK(words[0].text == "abc");
  CHECK(words[0].pieces == std::vector<int>{0, 1});
}

TEST_CASE("group_words: explicit special flags replace the default names", "[alignment]") {
  std::vector<std::string> pieces = {W + "a", "</s>", W + "b", "<eos>"};
  std::vector<Word> words = group_words(pieces, {false, false, false, true});
  // "</s>" is not flagged here, so it continues "a"; "<eos>" is flagged.
  CHECK(texts(words) == std::vector<std::string>{"a</s>", "b"});
  CHECK(group_words({}).empty());
  CHECK(group_words({"</s>"}).empty());
  CHECK(group_words({"<s>", "<pad>"}).empty());
}

TEST_CASE("merge_to_words sums over source pieces and averages over target pieces", "[alignment]") {
  // Source: ▁The ▁bl ack ▁cat </s>   Target: ▁Le ▁ch at ▁noir </s>
  std::vector<std::string> source = {W + "The", W + "bl", "ack", W + "cat", "</s>"};
  std::vector<std::string> target = {W + "Le", W + "ch", "at", W + "noir", "</s>"};
  WeightMatrix cross = matrix({
      {0.70f, 0.05f, 0.05f, 0.10f, 0.10f},  // ▁Le
      {0.05f, 0.10f, 0.05f, 0.60f, 0.20f},  // ▁ch
      {0.10f, 0.05f, 0.05f, 0.40f, 0.40f},  // at
      {0.05f, 0.40f, 0.35f, 0.10f, 0.10f},  // ▁noir
      {0.20f, 0.20f, 0.20f, 0.20f, 0.20f},  // </s>
  });
  std::vector<Word> s = group_words(source), t = group_words(target);
  REQUIRE(texts(s) == std::vector<std::string>{"The", "black", "cat"});
  REQUIRE(texts(t) == std::vector<std::string>{"Le", "chat", "noir"});
  WeightMatrix words = merge_to_words(cross, t, s);
  REQUIRE(words.rows == 3);
  REQUIRE(words.cols == 3);
  CHECK(words.at(0, 0) == Approx(0.70f));
  CHECK(words.at(0, 1) == Approx(0.10f));                // 0.05 + 0.05: summed over ▁bl ack
  CHECK(words.at(1, 1) == Approx((0.15f + 0.10f) / 2));  // mean over ▁ch at of the sums
  CHECK(words.at(1, 2) == Approx((0.60f + 0.40f) / 2));
  CHECK(words.at(2, 1) == Approx(0.75f));
  CHECK(words.at(2, 2) == Approx(0.10f));

  std::vector<Link> links = align(words, AlignRule::kBestSource);
  CHECK(links == std::vector<Link>{{0, 0}, {1, 2}, {2, 1}});  // black-noir, cat-chat: crossing
  CHECK(to_pharaoh(links) == "0-0 1-2 2-1");

  WordAlignment all = align_pieces(source, {}, target, {}, cross, AlignRule::kBestSource);
  CHECK(to_pharaoh(all.links) == "0-0 1-2 2-1");
  // The default, union: here both directions agree.
  CHECK(to_pharaoh(align_pieces(source, {}, target, {}, cross).links) == "0-0 1-2 2-1");
}

TEST_CASE("merge_to_words checks piece indices", "[alignment]") {
  WeightMatrix cross(2, 2);
  std::vector<Word> words = {{"x", {0, 2}}};
  CHECK_THROWS_AS(merge_to_words(cross, words, {{"y", {0}}}), Error);
  CHECK_THROWS_AS(merge_to_words(cross, {{"y", {0}}}, words), Error);
}

TEST_CASE("align: the three rules and ties", "[alignment]") {
  // Target words (rows) x source words (cols).
  WeightMatrix words = matrix({
      {0.6f, 0.3f, 0.1f},
      {0.5f, 0.4f, 0.1f},
  });
  CHECK(to_pharaoh(align(words, AlignRule::kBestSource)) == "0-0 0-1");
  // Source word 1: 0.3 vs 0.4 -> target 1; source word 2: a tie -> target 0.
  CHECK(to_pharaoh(align(words, AlignRule::kBestTarget)) == "0-0 1-1 2-0");
  CHECK(to_pharaoh(align(words, AlignRule::kIntersection)) == "0-0");
  CHECK(to_pharaoh(align(matrix({{0.5f, 0.5f}}), AlignRule::kBestSource)) ==
        "0-0");  // ties: the lowest index
  CHECK(align(WeightMatrix(0, 3)).empty());
  CHECK(align(WeightMatrix(3, 0)).empty());
  CHECK(to_pharaoh({}) == "");
}

TEST_CASE("align: union and grow-diag-final on an elision", "[alignment]") {
  // Source: I like the bird.  Target: J'aime l'oiseau.  Each French word holds two English ones.
  WeightMatrix words = matrix({
      {0.30f, 0.60f, 0.05f, 0.05f},  // J'aime
      {0.05f, 0.05f, 0.30f, 0.60f},  // l'oiseau
  });
  // best-source: J'aime -> like, l'oiseau -> bird; best-target: I, like -> J'aime; the, bird ->
  // l'oiseau.
  CHECK(to_pharaoh(align(words, AlignRule::kBestSource)) == "1-0 3-1");
  CHECK(to_pharaoh(align(words, AlignRule::kBestTarget)) == "0-0 1-0 2-1 3-1");
  CHECK(to_pharaoh(align(words, AlignRule::kIntersection)) == "1-0 3-1");
  CHECK(to_pharaoh(align(words, AlignRule::kUnion)) == "0-0 1-0 2-1 3-1");
  // Growing from 1-0: 0-0 (above it, I unlinked), then 2-1 (diagonal, the unlinked).
  CHECK(to_pharaoh(align(words, AlignRule::kGrowDiagFinal)) == "0-0 1-0 2-1 3-1");
}

TEST_CASE("align: grow-diag-final leaves out a union link whose words are both linked",
          "[alignment]") {
  // Rows: 4 target words, columns: 3 source words; no ties.
  WeightMatrix words = matrix({
      {0.1f, 0.2f, 0.7f},  // t0 -> s2
      {0.3f, 0.1f, 0.6f},  // t1 -> s2
      {0.1f, 0.8f, 0.1f},  // t2 -> s1
      {0.2f, 0.5f, 0.3f},  // t3 -> s1
  });
  // Columns: s0 -> t1 (0.3), s1 -> t2 (0.8), s2 -> t0 (0.7).
  CHECK(to_pharaoh(align(words, AlignRule::kBestSource)) == "1-2 1-3 2-0 2-1");
  CHECK(to_pharaoh(align(words, AlignRule::kBestTarget)) == "0-1 1-2 2-0");
  CHECK(to_pharaoh(align(words, AlignRule::kIntersection)) == "1-2 2-0");
  CHECK(to_pharaoh(align(words, AlignRule::kUnion)) == "0-1 1-2 1-3 2-0 2-1");
  // Start: 1-2 2-0. Source 0 has nothing; around 1-2 (source 1 comes before source 2), the
  // neighbours in Koehn's order: 0-2 1-1 2-2 (not in the union), 1-3 (union, t3 unlinked: added),
  // 0-1 (diagonal, union, s0 unlinked: added). Around 2-0: 2-1 is in the union but s2 and now t1
  // are linked: left out, also by the final pass. A second round adds nothing.
  CHECK(to_pharaoh(align(words, AlignRule::kGrowDiagFinal)) == "0-1 1-2 1-3 2-0");
}

TEST_CASE("align: grow-diag-final's final pass adds a link far from the others", "[alignment]") {
  WeightMatrix words = matrix({
      {0.70f, 0.10f, 0.10f, 0.10f},  // t0 -> s0
      {0.00f, 0.45f, 0.15f, 0.40f},  // t1 -> s1
      {0.20f, 0.40f, 0.10f, 0.30f},  // t2 -> s1
      {0.30f, 0.20f, 0.10f, 0.38f},  // t3 -> s3
  });
  // Columns: s0 -> t0, s1 -> t1, s2 -> t1 (0.15), s3 -> t1 (0.40 > 0.38).
  CHECK(to_pharaoh(align(words, AlignRule::kIntersection)) == "0-0 1-1");
  CHECK(to_pharaoh(align(words, AlignRule::kUnion)) == "0-0 1-1 1-2 2-1 3-1 3-3");
  // Growing: around 1-1, 2-1 (s2 unlinked) and 1-2 (t2 unlinked); around 2-1, 3-1 (s3
  // unlinked). 3-3 touches none of them: only the final pass adds it (t3 is unlinked).
  CHECK(to_pharaoh(align(words, AlignRule::kGrowDiagFinal)) == "0-0 1-1 1-2 2-1 3-1 3-3");
  CHECK(align(WeightMatrix(0, 3), AlignRule::kGrowDiagFinal).empty());
  CHECK(align(WeightMatrix(3, 0), AlignRule::kUnion).empty());
  CHECK(to_pharaoh(align(matrix({{1.0f}}), AlignRule::kGrowDiagFinal)) == "0-0");
}

TEST_CASE("align rule names", "[alignment]") {
  const std::vector<std::string>& names = align_rule_names();
  CHECK(names == std::vector<std::string>{"best-source", "best-target", "intersection", "union",
                                          "grow-diag-final"});
  for (const std::string& name : names) CHECK(to_string(parse_align_rule(name)) == name);
  CHECK_THROWS_WITH(parse_align_rule("grow-diag"),
                    "unknown alignment rule 'grow-diag' (use one of best-source, best-target, "
                    "intersection, union, grow-diag-final)");
  CHECK_THROWS_AS(parse_align_rule(""), Error);
  // The default is the rule with the lowest AER on the shipped model (docs/attention-view.md).
  CHECK(to_string(AlignmentOptions{}.rule) == std::string("union"));
  CHECK(to_pharaoh(align(matrix({{0.6f, 0.4f}, {0.7f, 0.3f}}))) == "0-0 0-1 1-0");
}

TEST_CASE("average_cross_attention picks the layer and averages the heads", "[alignment]") {
  AttentionRecord record;
  record.decoder_layers = 2;
  record.heads = 2;
  record.source_length = 2;
  // Two steps; step t: [layer][head][source]. Weight = layer + head/10 + t/100 + s/1000.
  for (int t = 0; t < 2; ++t) {
    std::vector<float> step;
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h)
        for (int s = 0; s < 2; ++s) step.push_back(l + h / 10.0f + t / 100.0f + s / 1000.0f);
    record.cross_steps.push_back(step);
  }
  WeightMatrix last = average_cross_attention(record, -1, {});
  REQUIRE(last.rows == 2);
  REQUIRE(last.cols == 2);
  CHECK(last.at(1, 1) == Approx(1.05f + 0.011f));  // mean of heads 0 and 1 of layer 1
  WeightMatrix first = average_cross_attention(record, 0, {1});
  CHECK(first.at(0, 1) == Approx(0.1f + 0.001f));
  CHECK(average_cross_attention(record, -2, {0}).at(1, 0) == Approx(0.01f));
  CHECK_THROWS_AS(average_cross_attention(record, 2, {}), Error);
  CHECK_THROWS_AS(average_cross_attention(record, -3, {}), Error);
  CHECK_THROWS_AS(average_cross_attention(record, 0, {2}), Error);
}

TEST_CASE("check_alignment_options refuses layers and heads the model lacks", "[alignment]") {
  AlignmentOptions options;
  CHECK_NOTHROW(check_alignment_options(options, 3, 4));
  options.layer = -3;
  options.heads = {0, 3};
  CHECK_NOTHROW(check_alignment_options(options, 3, 4));
  options.layer = 3;
  CHECK_THROWS_WITH(check_alignment_options(options, 3, 4),
                    Catch::Contains("decoder layer 3 does not exist"));
  options.layer = 0;
  options.heads = {4};
  CHECK_THROWS_WITH(check_alignment_options(options, 3, 4), Catch::Contains("head 4"));
}
