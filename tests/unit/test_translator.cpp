// The Translator on seeded random models: a batch equals each sentence alone, and the
// per-sentence rules: blank input (not searched, scored), invalid UTF-8, truncation, max_length.
#include "decoder_test_models.h"

namespace {

// A model directory with seeded random inline weights and the hand model's 8-piece
// character tokenizer (<pad> <unk> <s> </s> a b \u2581 c) on both sides.
std::shared_ptr<const Model> random_model_dir(const minimt::test::TempDir& dir, json patch,
                                              unsigned seed) {
  patch["source_vocab_size"] = 8;
  patch["target_vocab_size"] = 8;
  patch["tokenizer"] = {{"source", "vocab.spm"}, {"target", "vocab.spm"}};
  json config = small_config(patch);
  ModelConfig parsed = ModelConfig::from_json(config, "config.json");
  config["weights"] = minimt::test::random_inline_weights(parsed, seed, true);
  minimt::test::write_file(dir.file("config.json"), config.dump());
  minimt::test::write_file(
      dir.file("vocab.spm"),
      minimt::test::read_file(minimt::test::fixture_path("hand-model/vocab.spm")));
  return Model::load(dir.path());
}

void check_same_translation(const Translation& a, const Translation& b) {
  CHECK(a.error == b.error);
  CHECK(a.source_ids == b.source_ids);
  CHECK(a.output_ids == b.output_ids);
  CHECK(a.text == b.text);
  CHECK(a.truncated == b.truncated);
  REQUIRE(a.log_probs.size() == b.log_probs.size());
  if (!a.log_probs.empty())
    CHECK_ALL_CLOSE(a.log_probs.data(), b.log_probs.data(), a.log_probs.size(), 1e-5);
  CHECK(a.score == Approx(b.score).margin(1e-4));
}

}  // namespace

TEST_CASE("translator: a batch of 3 translates like one by one", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 12}}, 1515);
  Translator translator(model);
  TranslateOptions options;
  options.max_length = 10;
  const std::vector<std::string> texts = {"abc", "c", "ba cab bca"};
  auto batch = translator.translate(texts, options);
  REQUIRE(batch.size() == 3);
  for (size_t i = 0; i < texts.size(); ++i) {
    INFO("sentence " << i << ": " << texts[i]);
    auto alone = translator.translate({texts[i]}, options);
    REQUIRE(alone.size() == 1);
    CHECK(batch[i].ok());
    CHECK(batch[i].source == texts[i]);
    CHECK_FALSE(batch[i].output_ids.empty());
    CHECK(batch[i].output_ids.size() <= 10u);
    check_same_translation(batch[i], alone[0]);
  }
  CHECK(batch[0].source_ids == std::vector<int>{6, 4, 5, 7, 3});  // \u2581 a b c </s>
}

TEST_CASE("translator: blank sentences give \"\", eos alone as score reads it", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, json::object(), 1616);
  Translator translator(model);
  TranslateOptions scoring;
  scoring.columns = LineColumns::kSourceAndTarget;
  const Translation scored = translator.translate({"\t"}, scoring).at(0);  // score "" ""
  REQUIRE(scored.ok());
  REQUIRE(scored.log_probs.size() == 1);
  CHECK(scored.log_probs[0] < 0.0f);
  auto blank = translator.translate({"", "   ", "\t \r\n"});
  REQUIRE(blank.size() == 3);
  for (const Translation& t : blank) {
    CHECK(t.ok());
    CHECK(t.text.empty());  // not searched: the random model might say anything
    CHECK(t.finished);
    CHECK(t.output_ids == std::vector<int>{3});  // </s>
    CHECK(t.source_ids == std::vector<int>{3});
    CHECK(t.log_probs == scored.log_probs);  // the same bits as score "" ""
    CHECK(t.score == scored.score);
  }
  // Blank lines inside a batch leave the others as they are alone.
  auto mixed = translator.translate({"ab", "", "ca", " "});
  REQUIRE(mixed.size() == 4);
  CHECK(mixed[1].text.empty());
  CHECK(mixed[1].log_probs == scored.log_probs);
  CHECK(mixed[3].text.empty());
  check_same_translation(mixed[0], translator.translate({"ab"})[0]);
  check_same_translation(mixed[2], translator.translate({"ca"})[0]);
}

TEST_CASE("translator: invalid UTF-8 fails that sentence only", "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, json::object(), 1717);
  Translator translator(model);
  const std::vector<std::string> bad = {
      "a\xff"
      "b",             // a byte that never appears in UTF-8
      "ab\xc0\xaf",    // overlong encoding of '/'
      "\xed\xa0\x80",  // a UTF-16 surrogate
      "abc\xe2\x82",   // a sequence cut short
      "\x80"
      "abc",  // a lone continuation byte
  };
  for (const std::string& text : bad) {
    INFO("bad input of " << text.size() << " bytes");
    auto results = translator.translate({"ab", text, "ca"});
    REQUIRE(results.size() == 3);
    CHECK_FALSE(results[1].ok());
    CHECK_THAT(results[1].error, Catch::Contains("UTF-8"));
    CHECK(results[1].text.empty());
    CHECK(results[1].output_ids.empty());
    check_same_translation(results[0], translator.translate({"ab"})[0]);
    check_same_translation(results[2], translator.translate({"ca"})[0]);
  }
  CHECK_THAT(translator.translate({"ab\xff"})[0].error, Catch::Contains("byte 2"));
  // Valid multi-byte text is not an error (the characters are unknown pieces).
  auto valid = translator.translate({"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"});
  CHECK(valid[0].ok());
}

TEST_CASE("translator: a long source is cut to max_positions, keeping the final eos",
          "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 6}}, 1818);
  Translator translator(model);
  const std::string text = "abcabcabc";  // \u2581 a b c a b c a b c: 10 pieces, 11 with eos
  const std::vector<int> pieces = model->source_tokenizer().encode(text);
  REQUIRE(pieces.size() == 10);

  bool truncated = false;
  std::vector<int> ids = translator.source_ids(text, &truncated);
  CHECK(truncated);
  REQUIRE(ids.size() == 6);
  CHECK(ids.back() == 3);  // eos
  CHECK(std::vector<int>(ids.begin(), ids.end() - 1) ==
        std::vector<int>(pieces.begin(), pieces.begin() + 5));

  auto results = translator.translate({text, "ab"});
  CHECK(results[0].truncated);
  CHECK(results[0].source_ids == ids);
  CHECK(results[0].ok());
  CHECK(results[0].output_ids.size() <= 6u);  // max_length is capped at max_positions
  CHECK_FALSE(results[1].truncated);
  CHECK(results[1].source_ids == std::vector<int>{6, 4, 5, 3});

  // Exactly max_positions with eos is not cut: 5 pieces + eos.
  truncated = true;
  CHECK(translator.source_ids("abca", &truncated).size() == 6);
  CHECK_FALSE(truncated);
  CHECK(translator.effective_max_length(256) == 6);
  CHECK(translator.effective_max_length(2) == 2);
  CHECK(translator.effective_max_length(-1) == 0);
}

TEST_CASE("translator: max_length bounds the output and recorded attention covers each step",
          "[translator]") {
  minimt::test::TempDir dir;
  auto model = random_model_dir(dir, {{"max_positions", 12}}, 1919);
  Translator translator(model);
  TranslateOptions options;
  options.max_length = 3;
  options.record_attention = true;
  auto results = translator.translate({"abc", "b"}, options);
  for (const Translation& t : results) {
    REQUIRE(t.ok());
    CHECK(t.output_ids.size() <= 3u);
    REQUIRE(t.attention);
    CHECK(t.attention->steps() == static_cast<int>(t.output_ids.size()));
    CHECK(t.attention->source_length == static_cast<int>(t.source_ids.size()));
    // The generated ids stop at the first eos.
    for (size_t i = 0; i + 1 < t.output_ids.size(); ++i) CHECK(t.output_ids[i] != 3);
  }
  options.max_length = 0;
  auto none = translator.translate({"abc"}, options);
  CHECK(none[0].output_ids.empty());
  CHECK(none[0].text.empty());
}
