// The dump in memory against its JSON, on the hand model: a sentence the recorder makes from a
// translation is, field for field and bit for bit, what writing it and reading it back gives;
// and writing what was read gives the same text again (the writer and the reader are a pair).
#include <cstring>
#include <sstream>

#include "minimt/app/record/attention_dump.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/record/dump_recorder.h"
#include "minimt/app/translate/translator.h"
#include "test_support.h"

namespace {

using namespace minimt;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void check_same(const AttentionMatrices& a, const AttentionMatrices& b) {
  INFO(a.type);
  CHECK(a.type == b.type);
  CHECK(a.layer_labels == b.layer_labels);
  CHECK(a.model_layers == b.model_layers);
  CHECK(a.heads == b.heads);
  CHECK(a.rows == b.rows);
  CHECK(a.cols == b.cols);
  CHECK(same_bits(a.values, b.values));
  CHECK(a.masked == b.masked);
  CHECK(a.empty_layers == b.empty_layers);
}

void check_same(const DumpRollout& a, const DumpRollout& b) {
  CHECK(a.present == b.present);
  CHECK(a.rows == b.rows);
  CHECK(a.cols == b.cols);
  CHECK(same_bits(a.values, b.values));
}

void check_same(const DumpSentence& a, const DumpSentence& b) {
  INFO("sentence " << a.number << ": " << a.source);
  CHECK(a.number == b.number);
  CHECK(a.source == b.source);
  CHECK(a.translation == b.translation);
  CHECK(a.error == b.error);
  CHECK(a.source_tokens == b.source_tokens);
  CHECK(a.decoder_input_tokens == b.decoder_input_tokens);
  CHECK(a.output_tokens == b.output_tokens);
  CHECK(same_bits(a.output_log_probs, b.output_log_probs));
  CHECK(a.given_tokens == b.given_tokens);
  CHECK(a.alternatives == b.alternatives);
  REQUIRE(a.attention.size() == b.attention.size());
  for (size_t i = 0; i < a.attention.size(); ++i) check_same(a.attention[i], b.attention[i]);
  REQUIRE(a.extras.size() == b.extras.size());
  for (size_t i = 0; i < a.extras.size(); ++i) check_same(a.extras[i], b.extras[i]);
  CHECK(a.layer_predictions == b.layer_predictions);
  CHECK(a.lens_layer_labels == b.lens_layer_labels);
  CHECK(a.lens_present == b.lens_present);
  check_same(a.encoder_rollout, b.encoder_rollout);
  check_same(a.cross_rollout, b.cross_rollout);
}

std::string written(const AttentionDump& dump) {
  std::ostringstream out;
  AttentionDumpWriter writer(out, dump);
  for (const DumpSentence& s : dump.sentences) writer.add(s);
  writer.finish();
  return out.str();
}

}  // namespace

TEST_CASE("dump recorder: the recorded dump is the dump read back", "[dump]") {
  const Translator translator(Model::load(test::fixture_path("hand-model")));
  TranslateOptions options;
  options.record_attention = true;
  options.record_extras = {true, true, true, true};
  options.logit_lens = 3;
  options.alternatives = 2;
  // Blank, invalid UTF-8 (a failure), cut at max_positions, and plain sentences.
  const std::vector<std::string> lines = {"abc", "", "a\xff", "ba cab bca", "c"};
  const std::vector<Translation> translations = translator.translate(lines, options);

  DumpSelection everything;
  everything.rollout = everything.scores = everything.vectors = everything.norms = true;
  everything.logit_lens = 3;
  everything.masked_heads = "cross:0:1,encoder:0:0";
  DumpSelection some = everything;
  some.types = {"decoder", "cross"};
  some.layers = {-1};
  some.heads = {1};
  DumpSelection plain;
  plain.layers = {0};
  for (const DumpSelection& selection : {everything, some, plain}) {
    const DumpRecorder recorder(translator.model(), selection);
    AttentionDump recorded = recorder.header();
    for (const Translation& t : translations)
      recorded.sentences.push_back(
          recorder.record(t, static_cast<int>(recorded.sentences.size()) + 1));
    const std::string text = written(recorded);
    std::istringstream in(text);
    const AttentionDump read = read_attention_dump(in, "d.json");
    CHECK(read.model == recorded.model);
    CHECK(read.compute_type == recorded.compute_type);
    CHECK(read.masked_heads == recorded.masked_heads);
    CHECK(read.notes == recorded.notes);
    CHECK(read.types == recorded.types);
    CHECK(read.kept.heads == recorded.kept.heads);
    CHECK(read.kept.layers == recorded.kept.layers);
    REQUIRE(read.sentences.size() == recorded.sentences.size());
    for (size_t i = 0; i < read.sentences.size(); ++i)
      check_same(recorded.sentences[i], read.sentences[i]);
    CHECK(written(read) == text);
  }
}
