// Nearly 500 lines: the page, SVG, dump-reader and difference cases share the dumps at the top.
// top. The attention page: reading dumps (full, partial, failed and blank sentences), the page's
// data (every type, layer and head, the texts of each type) and its embedded weights; the page's
// script builds the figures from that data (tests/e2e/test_page_views.py checks them).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/app/views/attention_view.h"
#include "minimt/base/base64.h"
#include "minimt/base/error.h"
#include "minimt/base/from_end.h"
#include "minimt/base/json_writer.h"

using namespace minimt;
using nlohmann::json;

namespace {

// A distinct, recognisable number per position: 0.ABCD with A = layer+1, B = head+1, C = row+1,
// D = column+1 (tests use at most 9 of each).
float raw_weight(int type, int l, int h, int i, int j) {
  return (l + 1) * 0.1f + (h + 1) * 0.01f + (i + 1) * 0.001f + (j + 1) * 0.0001f + type * 0.00001f;
}

// The weight at a position: its raw_weight over its row's (4 keys; the decoder's up to the
// diagonal, the upper triangle 0), so that each row is a distribution as softmax gives: the
// reader refuses others.
float weight(int type, int l, int h, int i, int j) {
  if (type == 1 && j > i) return 0.0f;
  float sum = 0;
  for (int k = 0; k < 4; ++k)
    if (!(type == 1 && k > i)) sum += raw_weight(type, l, h, i, k);
  return raw_weight(type, l, h, i, j) / sum;
}

json matrices(int type, int layers, const std::vector<int>& heads, int rows, int cols,
              const std::vector<int>& layer_ids) {
  json out = json::array();
  for (int a = 0; a < layers; ++a) {
    json layer = json::array();
    for (int h : heads) {
      json m = json::array();
      for (int i = 0; i < rows; ++i) {
        json row = json::array();
        for (int j = 0; j < cols; ++j) row.push_back(weight(type, layer_ids[a], h, i, j));
        m.push_back(row);
      }
      layer.push_back(m);
    }
    out.push_back(layer);
  }
  return out;
}

const std::string W = "\xE2\x96\x81";  // ▁

// A dump as `minimt translate --dump-attention` writes it: 2 encoder and 2 decoder layers,
// the given heads; sentence 1 translated, sentence 2 failed, sentence 3 blank.
json make_dump(std::vector<std::string> types = {"encoder", "decoder", "cross"},
               json layers = nullptr, std::vector<int> heads = {0, 1, 2}) {
  std::vector<int> layer_ids;
  if (layers.is_null())
    layer_ids = {0, 1};
  else
    for (int l : layers) layer_ids.push_back(index_from_end(l, 2));
  json s1 = {{"source", "The cat <b>sleeps</b>."},
             {"translation", "Le chat dort."},
             {"source_tokens", {W + "The", W + "cat", W + "<b>sleeps</script>", "</s>"}},
             {"decoder_input_tokens", {"<s>", W + "Le", W + "chat", W + "dort."}},
             {"output_tokens", {W + "Le", W + "chat", W + "dort.", "</s>"}}};
  const int S = 4, T = 4, L = static_cast<int>(layer_ids.size());
  for (const std::string& type : types) {
    if (type == "encoder") s1["encoder_self_attention"] = matrices(0, L, heads, S, S, layer_ids);
    if (type == "decoder") s1["decoder_self_attention"] = matrices(1, L, heads, T, T, layer_ids);
    if (type == "cross") s1["cross_attention"] = matrices(2, L, heads, T, S, layer_ids);
  }
  json s2 = {{"source", "bad \xC3"}, {"error", "invalid UTF-8 at byte 4"}};
  json s3 = {{"source", ""},
             {"translation", ""},
             {"source_tokens", json::array()},
             {"decoder_input_tokens", json::array()},
             {"output_tokens", json::array()}};
  for (const std::string& type : types) {
    const char* key = type == "encoder"   ? "encoder_self_attention"
                      : type == "decoder" ? "decoder_self_attention"
                                          : "cross_attention";
    s3[key] = json::array();
  }
  return {{"format", "minimt-attention"},
          {"version", 1},
          {"model", "/models/toy"},
          {"selection", {{"types", types}, {"layers", layers}, {"heads", heads}}},
          {"sentences", {s1, s2, s3}}};
}

std::string render(const json& dump, ViewOptions options = {}, ViewSummary* summary = nullptr) {
  AttentionDump parsed = parse_attention_dump(dump, "test.json");
  std::ostringstream out;
  ViewSummary s = write_attention_page(parsed, out, options);
  if (summary) *summary = s;
  return out.str();
}

json page_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"minimt-data\">";
  size_t begin = page.find(open);
  REQUIRE(begin != std::string::npos);
  begin += open.size();
  size_t end = page.find("</script>", begin);
  REQUIRE(end != std::string::npos);
  return json::parse(page.substr(begin, end - begin));
}

// The page's weights: base64 of little-endian single floats (data.js: decodeFloats).
std::vector<float> single_floats(const json& packed) {
  const std::vector<unsigned char> bytes = base64_decode(packed.get<std::string>());
  std::vector<float> out(bytes.size() / 4);
  for (size_t k = 0; k < out.size(); ++k) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= static_cast<uint32_t>(bytes[4 * k + b]) << (8 * b);
    std::memcpy(&out[k], &bits, 4);
  }
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("half floats: exact values, rounding, small weights", "[view]") {
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(0.5f) == 0x3800);
  CHECK(float_to_half(0.0f) == 0);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(1e6f) == 0x7C00);
  CHECK(float_to_half(5.96046448e-8f) == 0x0001);  // the smallest subnormal
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x0001) == Approx(5.96046448e-8f));
  // Every weight in [0, 1] comes back within half a unit in the last place (2^-11 relative).
  for (float w : {0.123456f, 0.999999f, 0.000123f, 7.5e-6f, 0.3333333f, 1.0f}) {
    float back = half_to_float(float_to_half(w));
    CHECK(std::abs(back - w) <= w * (1.0f / 2048) + 6e-8f);
  }
  CHECK(encode_weights({1.0f}) == "ADw=");  // 0x3C00 little-endian: 00 3C
  std::vector<float> values = {0.0f, 0.25f, 0.5f, 1.0f, 0.1f};
  std::vector<float> back = decode_weights(encode_weights(values));
  REQUIRE(back.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) CHECK(back[i] == Approx(values[i]).epsilon(1e-3));
}

TEST_CASE("the page's data has every type, layer and head, and what the page says of each type",
          "[view]") {
  ViewSummary summary;
  std::string page = render(make_dump(), {}, &summary);
  CHECK(summary.sentences == 3);
  CHECK(summary.heatmaps == 3 * 2 * 3);
  CHECK(summary.averages == 3 * 2);
  json data = page_data(page);
  const json& attention = data["sentences"][0]["attention"];
  CHECK(attention.size() == 3);
  for (const char* type : {"encoder", "decoder", "cross"}) {
    CHECK(attention[type]["layers"] == json({"0", "1"}));
    CHECK(attention[type]["heads"] == json({0, 1, 2}));
  }
  // The types in the dump's order, then the rollouts, each with its section's texts.
  const json& kinds = data["kinds"];
  REQUIRE(kinds.size() == 5);
  CHECK(kinds[0]["type"] == "encoder");
  CHECK(kinds[0]["heading"] == "Encoder self-attention");
  CHECK(kinds[1]["heading"] == "Decoder masked self-attention");
  CHECK(kinds[1]["axes"].get<std::string>().find("hatched: the causal mask") != std::string::npos);
  CHECK(kinds[2]["heading"] == "Cross-attention (decoder reads the encoder)");
  CHECK(kinds[2]["right"] == "output_tokens");
  CHECK(kinds[3]["type"] == "encoder_rollout");
  CHECK(kinds[3]["of"] == "encoder");
  CHECK(kinds[4]["caption"] == "cross rollout");
  CHECK(page.find("id=\"minimt-status\"") != std::string::npos);
}

TEST_CASE("the page is self-contained and safe", "[view]") {
  std::string page = render(make_dump());
  // No network: nothing fetched from anywhere.
  for (const char* outside : {"http://", "https://", "src=\"", "<link", "@import", "url("})
    CHECK(page.find(outside) == std::string::npos);
  // The source text is only in the data, where no "<" can end the element.
  CHECK(page.find("The cat \\u003cb>sleeps\\u003c/b>.") != std::string::npos);
  CHECK(page.find("<b>sleeps") == std::string::npos);
  // The error handler, the colour scales, the data, the main script.
  CHECK(count(page, "</script>") == 4);
  CHECK(page.find("{{") == std::string::npos);
}

TEST_CASE("the page embeds the tokens and every weight", "[view]") {
  json dump = make_dump();
  json data = page_data(render(dump));
  REQUIRE(data["sentences"].size() == 3);
  const json& s = data["sentences"][0];
  CHECK(s["number"] == 1);
  CHECK(s["source_tokens"] == dump["sentences"][0]["source_tokens"]);
  CHECK(s["decoder_input_tokens"] == dump["sentences"][0]["decoder_input_tokens"]);
  CHECK(s["output_tokens"] == dump["sentences"][0]["output_tokens"]);
  CHECK(s["source_tokens"][2] == W + "<b>sleeps</script>");
  CHECK(data["model"] == "/models/toy");

  const char* types[] = {"encoder", "decoder", "cross"};
  const int rows[] = {4, 4, 4}, cols[] = {4, 4, 4};
  for (int type = 0; type < 3; ++type) {
    INFO(types[type]);
    const json& m = s["attention"][types[type]];
    CHECK(m["layers"] == json({"0", "1"}));
    CHECK(m["heads"] == json({0, 1, 2}));
    CHECK(m["rows"] == rows[type]);
    CHECK(m["cols"] == cols[type]);
    const bool lower = type == 1;
    CHECK(m["lower"] == lower);
    std::vector<float> w = single_floats(m["f"]);  // the dump's floats, every bit
    size_t k = 0;
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 3; ++h)
        for (int i = 0; i < rows[type]; ++i)
          for (int j = 0; j < (lower ? i + 1 : cols[type]); ++j) {
            REQUIRE(k < w.size());
            CHECK(w[k++] == static_cast<float>(weight(type, l, h, i, j)));
          }
    CHECK(k == w.size());  // the decoder keeps only the lower triangle: the rest is masked
  }
  // Sentence 2 failed, sentence 3 is blank: no matrices.
  CHECK(data["sentences"][1]["error"] == "invalid UTF-8 at byte 4");
  CHECK(data["sentences"][1]["attention"].empty());
  CHECK(data["sentences"][2]["attention"].empty());
}

TEST_CASE("a dump with only some types, layers and heads", "[view]") {
  json dump = make_dump({"cross"}, json::array({-1}), {1});
  ViewSummary summary;
  std::string page = render(dump, {}, &summary);
  CHECK(summary.heatmaps == 1);
  CHECK(summary.averages == 1);
  json data = page_data(page);
  CHECK(data["sentences"][0]["attention"].size() == 1);  // the page says the others are not in it
  const json& m = data["sentences"][0]["attention"]["cross"];
  CHECK(m["layers"] == json({"-1"}));
  CHECK(m["heads"] == json({1}));
  std::vector<float> w = single_floats(m["f"]);
  REQUIRE(w.size() == 16);
  CHECK(w[5] == static_cast<float>(weight(2, 1, 1, 1, 1)));  // layer -1 is layer 1 here
}

TEST_CASE("dump_layer_labels undoes the writer's selection", "[view]") {
  CHECK(dump_layer_labels(nullptr, 3) == std::vector<std::string>{"0", "1", "2"});
  CHECK(dump_layer_labels(json::array({0, -1}), 2) == std::vector<std::string>{"0", "-1"});
  // --dump-layers 1,4 on a model with 6 encoder and 2 decoder layers: the decoder keeps layer 1.
  CHECK(dump_layer_labels(json::array({1, 4}), 2) == std::vector<std::string>{"1", "4"});
  CHECK(dump_layer_labels(json::array({1, 4}), 1) == std::vector<std::string>{"1"});
  CHECK(dump_layer_labels(json::array({4, -1, 1}), 2) == std::vector<std::string>{"-1", "1"});
  CHECK(dump_layer_labels(json::array({5}), 0).empty());
  // Nonsense falls back to positions.
  CHECK(dump_layer_labels(json::array({0}), 2) == std::vector<std::string>{"0", "1"});
}

// Found by tests/fuzz (fuzz_dump): a huge layer number overflowed int and a large one took a
// loop through every depth up to it (minutes for 1e9).
TEST_CASE("dump_layer_labels on huge layer numbers", "[view][fuzz]") {
  CHECK(dump_layer_labels(json::array({2147483647}), 1) == std::vector<std::string>{"2147483647"});
  CHECK(dump_layer_labels(json::array({1000000000, 0}), 1) == std::vector<std::string>{"0"});
  CHECK(dump_layer_labels(json::array({1000000000, 0}), 3) ==
        std::vector<std::string>{"0", "1", "2"});
}

TEST_CASE("choosing sentences", "[view]") {
  ViewOptions options;
  options.sentences = {3, 1, 3};
  options.title = "My <title>";
  ViewSummary summary;
  std::string page = render(make_dump(), options, &summary);
  CHECK(summary.sentences == 2);
  json data = page_data(page);
  REQUIRE(data["sentences"].size() == 2);
  CHECK(data["sentences"][0]["number"] == 3);
  CHECK(data["sentences"][1]["number"] == 1);
  CHECK(data["title"] == "My <title>");
  options.sentences = {};
  options.title = "bad \xE2\x96 title";  // a truncated character: U+FFFD per byte, as in the SVG
  CHECK(page_data(render(make_dump(), options))["title"] == "bad \xEF\xBF\xBD\xEF\xBF\xBD title");
  options.sentences = {4};
  CHECK_THROWS_WITH(render(make_dump(), options), Catch::Contains("sentence 4 is not in the dump"));
}

TEST_CASE("malformed dumps are refused with a message that says where", "[view]") {
  CHECK_THROWS_WITH(parse_attention_dump(json::object(), "d.json"),
                    Catch::Contains("not a minimt attention dump"));
  json dump = make_dump();
  dump["version"] = 2;
  CHECK_THROWS_WITH(parse_attention_dump(dump, "d.json"), Catch::Contains("version 2"));

  dump = make_dump();
  dump["sentences"][0]["cross_attention"][1][2].erase(3);
  CHECK_THROWS_WITH(parse_attention_dump(dump, "d.json"),
                    Catch::Contains("sentence 1: cross_attention[1][2] should have 4 rows"));

  dump = make_dump();
  dump["sentences"][0]["encoder_self_attention"][0][0][1].push_back(0.5);
  CHECK_THROWS_WITH(parse_attention_dump(dump, "d.json"),
                    Catch::Contains("encoder_self_attention[0][0][1] should have 4 weights"));

  dump = make_dump();
  dump["sentences"][0]["decoder_self_attention"][0].erase(0);
  CHECK_THROWS_WITH(parse_attention_dump(dump, "d.json"), Catch::Contains("list of 3 heads"));

  dump = make_dump();
  dump["sentences"][0]["output_tokens"].erase(0);
  CHECK_THROWS_WITH(parse_attention_dump(dump, "d.json"), Catch::Contains("differ in length"));

  std::istringstream broken("{\"format\": ");
  CHECK_THROWS_WITH(read_attention_dump(broken, "d.json"), Catch::Contains("not valid JSON"));
  // Found by fuzz_dump: a number too large for a double is nlohmann's out_of_range, not a
  // parse_error, and escaped as an internal error.
  std::istringstream huge("{\"format\": \"minimt-attention\", \"model\": 4e4444444}");
  CHECK_THROWS_WITH(read_attention_dump(huge, "d.json"),
                    Catch::Contains("d.json: not valid JSON") && Catch::Contains("4e4444444"));
  // And deep nesting overflowed the stack (fuzz_dump).
  std::istringstream deep("{\"format\": \"minimt-attention\", \"version\": " +
                          std::string(100000, '[') + std::string(100000, ']') + "}");
  CHECK_THROWS_WITH(read_attention_dump(deep, "d.json"),
                    Catch::Contains("d.json: not valid JSON (nested deeper than 64 levels)"));
}

TEST_CASE("a dump without a selection object is read from its shapes", "[view]") {
  json dump = make_dump();
  dump.erase("selection");
  AttentionDump parsed = parse_attention_dump(dump, "d.json");
  REQUIRE(parsed.sentences[0].attention.size() == 3);
  CHECK(parsed.sentences[0].attention[0].heads == std::vector<int>{0, 1, 2});
  CHECK(parsed.sentences[0].attention[2].layer_labels == std::vector<std::string>{"0", "1"});
  CHECK(parsed.sentences[0].attention[2].at(1, 2, 3, 0) == Approx(weight(2, 1, 2, 3, 0)));
}

TEST_CASE("static SVG: one heatmap per layer and head, labels, the mask", "[view]") {
  AttentionDump dump = parse_attention_dump(make_dump(), "d.json");
  const DumpSentence& s = dump.sentences[0];
  std::ostringstream cross, decoder;
  write_attention_svg(s, "cross", cross);
  write_attention_svg(s, "decoder", decoder);
  const std::string c = cross.str(), d = decoder.str();
  CHECK(c.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(count(c, "<g transform=") == 2 * 3);
  CHECK(c.find("layer 1 &#183; head 2") != std::string::npos);
  CHECK(count(c, "h12v12h-12z") == 2 * 3 * 4 * 4);                       // every cell
  CHECK(count(d, "h12v12h-12z") == 2 * 3 * (1 + 2 + 3 + 4));             // the lower triangle
  CHECK(count(d, "fill=\"url(#mask)\" d=") == 2 * 3);                    // mask per heatmap
  CHECK(c.find("&lt;b&gt;sleeps&lt;/script&gt;") != std::string::npos);  // escaped label
  CHECK(c.find("<b>") == std::string::npos);
  // The legend: ColorBrewer's YlGnBu, 9 classes; the mask's hatching.
  CHECK(c.find("<stop offset=\"0\" stop-color=\"#ffffd9\"/><stop offset=\"0.12\" "
               "stop-color=\"#edf8b1\"/>") != std::string::npos);
  CHECK(c.find("<stop offset=\"0.5\" stop-color=\"#41b6c4\"/>") != std::string::npos);
  CHECK(c.find("<stop offset=\"1\" stop-color=\"#081d58\"/></linearGradient>") !=
        std::string::npos);
  CHECK(c.find("<pattern id=\"mask\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
               "<rect width=\"6\" height=\"6\" fill=\"#e3e3e3\"/><path d=\"M-1,7 L7,-1 M-1,1 L1,-1 "
               "M5,7 L7,5\" stroke=\"#8c8c8c\" stroke-width=\"1.3\"/></pattern>") !=
        std::string::npos);
  std::ostringstream none;
  CHECK_THROWS_AS(write_attention_svg(dump.sentences[2], "cross", none), Error);
}

TEST_CASE("widen_halves (F16C or not) agrees with half_to_float on every half", "[view]") {
  std::vector<uint8_t> bytes;
  for (unsigned h = 0; h < 65536; ++h) {
    bytes.push_back(static_cast<uint8_t>(h & 0xff));
    bytes.push_back(static_cast<uint8_t>(h >> 8));
  }
  std::vector<float> wide(65536);
  widen_halves(bytes.data(), wide.size(), wide.data());
  size_t differ = 0;
  for (unsigned h = 0; h < 65536; ++h) {
    const float one = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(one)) {  // F16C quietens signalling NaNs: only NaN-ness must agree
      differ += !std::isnan(wide[h]);
      continue;
    }
    differ += std::memcmp(&one, &wide[h], sizeof one) != 0;  // bits: -0 too
    differ += float_to_half(one) != h;                       // and back
  }
  CHECK(differ == 0);
}

TEST_CASE("JSON writer: every control character escaped, no NaN or infinity", "[view]") {
  std::string text = "a\"b\\c/";
  for (char c = 1; c < 0x20; ++c) text += c;
  text += std::string(1, '\0') + "\xC3\xA9";
  const std::string quoted = json_string(text);
  for (char c : quoted) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK(json::parse(quoted) == text);
  CHECK(quoted.find("\\n") != std::string::npos);
  CHECK(quoted.find("\\u001f") != std::string::npos);
  CHECK(json_string("bad \xFF byte") == "\"bad \xEF\xBF\xBD byte\"");  // U+FFFD
  std::string out;
  append_json_float(out, 0.1f);
  out += ',';
  append_json_float(out, NAN);
  out += ',';
  append_json_float(out, -INFINITY);
  out += ',';
  append_json_float(out, 1e-8f);
  CHECK(out == "0.1,null,null,1e-08");
  std::ostringstream stream;
  write_json_float(stream, INFINITY);
  write_json_string(stream, "x");
  CHECK(stream.str() == "null\"x\"");
  CHECK(json_for_script(json{{"t", "</script><!--"}}) == "{\"t\":\"\\u003c/script>\\u003c!--\"}");
}

TEST_CASE("negative numbers count from the end", "[view]") {
  CHECK(index_from_end(0, 6) == 0);
  CHECK(index_from_end(5, 6) == 5);
  CHECK(index_from_end(-1, 6) == 5);
  CHECK(index_from_end(-6, 6) == 0);
  CHECK(index_from_end(-7, 6) == -1);  // out of range: callers check
  CHECK(index_from_end(6, 6) == 6);
}

TEST_CASE("output log-probabilities and alternatives: optional, read, checked", "[view]") {
  json dump = make_dump();
  const size_t outputs = dump["sentences"][0]["output_tokens"].size();
  AttentionDump plain = parse_attention_dump(dump, "d.json");  // a dump without them
  CHECK(plain.sentences[0].output_log_probs.empty());
  CHECK(plain.sentences[0].alternatives.empty());

  json log_probs = json::array(), alternatives = json::array();
  for (size_t i = 0; i < outputs; ++i) {
    log_probs.push_back(-0.25 * static_cast<double>(i));
    alternatives.push_back(json::array(
        {{{"token", "a"}, {"probability", 0.75}}, {{"token", "b"}, {"probability", 0.125}}}));
  }
  dump["sentences"][0]["output_log_probs"] = log_probs;
  dump["sentences"][0]["alternatives"] = alternatives;
  AttentionDump parsed = parse_attention_dump(dump, "d.json");
  const DumpSentence& s = parsed.sentences[0];
  REQUIRE(s.output_log_probs.size() == outputs);
  CHECK(s.output_log_probs.back() == Approx(-0.25 * static_cast<double>(outputs - 1)));
  REQUIRE(s.alternatives.size() == outputs);
  CHECK(s.alternatives[0][1] == std::make_pair(std::string("b"), 0.125f));

  json bad = dump;
  bad["sentences"][0]["output_log_probs"][0] = 0.5;  // a probability above 1
  CHECK_THROWS_WITH(parse_attention_dump(bad, "d.json"),
                    Catch::Contains("output_log_probs[0] is not a log-probability"));
  bad = dump;
  bad["sentences"][0]["output_log_probs"].erase(0);
  CHECK_THROWS_WITH(parse_attention_dump(bad, "d.json"),
                    Catch::Contains("output_log_probs is not a list of one entry per output"));
  bad = dump;
  bad["sentences"][0]["alternatives"][1][0]["probability"] = -1;
  CHECK_THROWS_WITH(parse_attention_dump(bad, "d.json"),
                    Catch::Contains("alternatives[1]: probability is not a probability"));
  bad = dump;
  bad["sentences"][0]["alternatives"][0][0].erase("token");
  CHECK_THROWS_WITH(parse_attention_dump(bad, "d.json"), Catch::Contains("alternatives[0]"));
}

TEST_CASE("two dumps' difference: the layers and heads both hold, B - A per cell", "[view]") {
  // B holds cross-attention only, layer 1, heads 1 and 2, one weight raised by 0.25 and two of
  // its row lowered by 0.125 each (the row stays a distribution).
  json b_document = make_dump({"cross"}, json::array({1}), {1, 2});
  json& row = b_document["sentences"][0]["cross_attention"][0][0][2];
  row[1] = weight(2, 1, 1, 2, 1) + 0.25f;
  row[0] = weight(2, 1, 1, 2, 0) - 0.125f;
  row[3] = weight(2, 1, 1, 2, 3) - 0.125f;
  const AttentionDump a = parse_attention_dump(make_dump(), "a.json");
  const AttentionDump b = parse_attention_dump(b_document, "b.json");
  const MatricesDifference d =
      matrices_difference(*a.sentences[0].find("cross"), *b.sentences[0].find("cross"));
  CHECK(d.change.layer_labels == std::vector<std::string>{"1"});
  CHECK(d.change.heads == std::vector<int>{1, 2});
  CHECK(d.a.at(0, 1, 3, 2) == Approx(weight(2, 1, 2, 3, 2)));
  CHECK(d.change.at(0, 0, 2, 1) == Approx(0.25f));
  CHECK(d.change.at(0, 1, 2, 1) == 0.0f);

  const std::vector<HeadChange> changes = largest_changes({a, "a.json"}, {b, "b.json"}, {});
  REQUIRE(changes.size() == 2);  // the heads both hold
  CHECK(changes[0].type == "cross");
  CHECK(changes[0].layer == "1");
  CHECK(changes[0].head == 1);
  CHECK(changes[0].change == Approx(0.25f));
  CHECK((changes[0].row == 2 && changes[0].col == 1 && changes[0].query == W + "chat" &&
         changes[0].key == W + "cat"));
  CHECK(is_unchanged(changes[1]));

  std::ostringstream svg;
  write_difference_svg(a.sentences[0], b.sentences[0], "cross", "a.json", "b.json", 0.25f, svg);
  const std::string text = svg.str();
  CHECK(count(text, "<g transform=") == 2);  // layer 1, heads 1 and 2
  CHECK(text.find("&#8722;0.2500 A higher") != std::string::npos);
  CHECK(text.find("B higher +0.2500") != std::string::npos);
  // The raised cell at the blue end of RdBu, the two lowered ones red, the others white.
  CHECK(text.find("<path fill=\"#2166ac\" d=\"M") != std::string::npos);
  CHECK(count(text, "<path fill=\"#") == 4);
  std::ostringstream none;
  CHECK_THROWS_AS(
      write_difference_svg(a.sentences[0], b.sentences[0], "encoder", "a.json", "b.json", 1, none),
      Error);
}
