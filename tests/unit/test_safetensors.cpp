// The safetensors reader, on files written byte by byte here: dtypes (F32, F16, BF16 widened to
// F32), __metadata__, a misaligned F32 tensor, and one clear error for each kind of bad file.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "minimt/base/error.h"
#include "minimt/model/safetensors.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::json;
using minimt::test::TempDir;

namespace {

std::string le64(uint64_t n) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return bytes;
}

std::string f32_bytes(const std::vector<float>& values) {
  std::string bytes;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int i = 0; i < 4; ++i) bytes += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  return bytes;
}

std::string u16_bytes(const std::vector<uint16_t>& values) {
  std::string bytes;
  for (uint16_t v : values) {
    bytes += static_cast<char>(v & 0xff);
    bytes += static_cast<char>(v >> 8);
  }
  return bytes;
}

// 8-byte little-endian header length, the header text (padded with spaces to a multiple of
// `align` bytes, counting the 8 length bytes), then the data section.
std::string safetensors_bytes(const std::string& header_text, const std::string& data,
                              size_t align = 8) {
  std::string header = header_text;
  while ((8 + header.size()) % align != 0) header += ' ';
  return le64(header.size()) + header + data;
}

std::string safetensors_bytes(const json& header, const std::string& data, size_t align = 8) {
  return safetensors_bytes(header.dump(), data, align);
}

json entry(const std::string& dtype, const Shape& shape, uint64_t begin, uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

std::vector<float> values_of(const TensorStore& store, const std::string& name) {
  const TensorView* view = store.find(name);
  REQUIRE(view != nullptr);
  return std::vector<float>(view->data, view->data + element_count(view->shape));
}

// Reads `bytes` as a file and returns the ModelError message (failing on success or on any
// other exception).
std::string read_error(const TempDir& dir, const std::string& bytes) {
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, bytes);
  TensorStore store;
  try {
    read_safetensors(path, store);
  } catch (const ModelError& e) {
    CHECK(e.file() == path);
    return e.what();
  } catch (const std::exception& e) {
    FAIL("not a ModelError: " << e.what());
  }
  FAIL("the file was accepted");
  return "";
}

}  // namespace

TEST_CASE("safetensors: F32 tensors keep their shapes and values", "[safetensors]") {
  TempDir dir;
  const std::vector<float> matrix = {1.5f, -2.25f, 3.0f, 0.0f, -0.0f, 1e-30f};
  const std::string data = f32_bytes(matrix) + f32_bytes({42.0f});
  json header = {{"layer.weight", entry("F32", {2, 3}, 0, 24)},
                 {"scalar", entry("F32", {}, 24, 28)},
                 {"empty", entry("F32", {0, 5}, 28, 28)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, data));

  TensorStore store;
  read_safetensors(path, store);
  REQUIRE(store.all().size() == 3);
  CHECK(store.find("layer.weight")->shape == Shape{2, 3});
  CHECK(values_of(store, "layer.weight") == matrix);
  CHECK(store.find("scalar")->shape == Shape{});
  CHECK(values_of(store, "scalar") == std::vector<float>{42.0f});
  CHECK(store.find("empty")->shape == Shape{0, 5});
  CHECK(store.find("missing") == nullptr);
}

TEST_CASE("safetensors: F16 is widened to F32 exactly, subnormals included", "[safetensors]") {
  TempDir dir;
  const std::vector<uint16_t> halves = {
      0x3c00,  // 1.0
      0xc000,  // -2.0
      0x3555,  // 0x155/0x400 + 1 times 2^-2 = 0.333251953125
      0x0001,  // smallest subnormal, 2^-24
      0x03ff,  // largest subnormal, 1023 * 2^-24
      0x0400,  // smallest normal, 2^-14
      0x7bff,  // largest finite, 65504
      0x8000,  // -0.0 (infinities and NaN are refused: see the hostile cases below)
  };
  json header = {{"h", entry("F16", {8}, 0, 16)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, u16_bytes(halves)));
  TensorStore store;
  read_safetensors(path, store);
  std::vector<float> v = values_of(store, "h");
  REQUIRE(v.size() == 8);
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == -2.0f);
  CHECK(v[2] == 0.333251953125f);
  CHECK(v[3] == std::ldexp(1.0f, -24));
  CHECK(v[4] == std::ldexp(1023.0f, -24));
  CHECK(v[5] == std::ldexp(1.0f, -14));
  CHECK(v[6] == 65504.0f);
  CHECK(v[7] == 0.0f);
  CHECK(std::signbit(v[7]));
}

TEST_CASE("safetensors: BF16 is widened to F32 exactly", "[safetensors]") {
  TempDir dir;
  const std::vector<uint16_t> brains = {0x3f80, 0xc040, 0x4049, 0x0001, 0xff7f, 0x0000};
  json header = {{"b", entry("BF16", {2, 3}, 0, 12)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, u16_bytes(brains)));
  TensorStore store;
  read_safetensors(path, store);
  std::vector<float> v = values_of(store, "b");
  CHECK(store.find("b")->shape == Shape{2, 3});
  CHECK(v[0] == 1.0f);
  CHECK(v[1] == -3.0f);
  CHECK(v[2] == 3.140625f);
  CHECK(v[3] == std::ldexp(1.0f, -133));    // bf16 keeps F32's subnormals
  CHECK(v[4] == -std::ldexp(255.0f, 120));  // the most negative finite bf16
  CHECK(v[5] == 0.0f);
}

TEST_CASE("safetensors: __metadata__ is read as strings and is not a tensor", "[safetensors]") {
  TempDir dir;
  json header = {{"__metadata__", {{"format", "pt"}, {"producer", "hand"}}},
                 {"w", entry("F32", {2}, 0, 8)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, f32_bytes({1.0f, 2.0f})));
  TensorStore store;
  read_safetensors(path, store);
  CHECK(store.all().size() == 1);
  CHECK(store.find("__metadata__") == nullptr);
  CHECK(values_of(store, "w") == std::vector<float>{1.0f, 2.0f});
}

TEST_CASE("safetensors: mixed dtypes and a misaligned F32 tensor read correctly", "[safetensors]") {
  TempDir dir;
  // One F16 value (2 bytes) first, so the F32 tensor starts 2 bytes past a 4-byte boundary;
  // the header is padded so the data section itself starts on a multiple of 4.
  const std::string data =
      u16_bytes({0x3c00}) + f32_bytes({0.1f, -7.5f, 1e20f}) + u16_bytes({0x3f80, 0x4000});
  json header = {{"half", entry("F16", {1}, 0, 2)},
                 {"odd", entry("F32", {3}, 2, 14)},
                 {"brain", entry("BF16", {2}, 14, 18)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, data, 4));
  TensorStore store;
  read_safetensors(path, store);
  CHECK(values_of(store, "half") == std::vector<float>{1.0f});
  CHECK(values_of(store, "odd") == std::vector<float>{0.1f, -7.5f, 1e20f});
  CHECK(values_of(store, "brain") == std::vector<float>{1.0f, 2.0f});
  for (const auto& [name, view] : store.all())
    CHECK(reinterpret_cast<uintptr_t>(view.data) % alignof(float) == 0);

  // The same with the header padded to an odd length: every F32 read is misaligned.
  json one = {{"w", entry("F32", {2}, 0, 8)}};
  std::string odd_header = one.dump();
  if ((8 + odd_header.size()) % 2 == 0) odd_header += ' ';
  minimt::test::write_file(path, le64(odd_header.size()) + odd_header + f32_bytes({3.5f, -1.0f}));
  TensorStore odd;
  read_safetensors(path, odd);
  CHECK(values_of(odd, "w") == std::vector<float>{3.5f, -1.0f});
}

TEST_CASE("safetensors: a file that is missing or too short names the path", "[safetensors]") {
  TempDir dir;
  TensorStore store;
  const std::string absent = dir.file("absent.safetensors");
  CHECK_THROWS_AS(read_safetensors(absent, store), ModelError);
  CHECK_THAT(minimt::test::error_of([&] { read_safetensors(absent, store); }),
             Catch::StartsWith(absent + ": "));
  CHECK_THAT(read_error(dir, ""), Catch::Contains("too short"));
  CHECK_THAT(read_error(dir, "abc"), Catch::Contains("too short"));
  CHECK(store.all().empty());
}

TEST_CASE("safetensors: a bad header is refused with a clear message", "[safetensors]") {
  TempDir dir;
  const std::string good = json{{"w", entry("F32", {2}, 0, 8)}}.dump();
  const std::string data = f32_bytes({1.0f, 2.0f});

  SECTION("header length larger than the file") {
    std::string message = read_error(dir, le64(good.size() + 100) + good + data);
    CHECK_THAT(message, Catch::Contains(std::to_string(good.size() + 100)));
    CHECK_THAT(message, Catch::Contains("header"));
  }
  SECTION("header length near 2^64") {
    CHECK_THAT(read_error(dir, le64(~0ull) + good + data), Catch::Contains("header"));
  }
  SECTION("header that is not JSON") {
    CHECK_THAT(read_error(dir, safetensors_bytes(std::string("{\"w\": [1, 2"), data)),
               Catch::Contains("JSON"));
  }
  SECTION("header that is not an object") {
    CHECK_THAT(read_error(dir, safetensors_bytes(json::array({1, 2}), data)),
               Catch::Contains("object"));
  }
  SECTION("__metadata__ that is not an object of strings") {
    CHECK_THAT(read_error(dir, safetensors_bytes(json{{"__metadata__", {{"n", 1}}}}, "")),
               Catch::Contains("__metadata__"));
    CHECK_THAT(read_error(dir, safetensors_bytes(json{{"__metadata__", "x"}}, "")),
               Catch::Contains("__metadata__"));
  }
}

TEST_CASE("safetensors: each bad tensor entry names the tensor", "[safetensors]") {
  TempDir dir;
  const std::string data = f32_bytes({1.0f, 2.0f, 3.0f, 4.0f});  // 16 data bytes
  struct Case {
    const char* what;
    json info;
    const char* detail;
  };
  const std::vector<Case> cases = {
      {"dtype I64", entry("I64", {2}, 0, 16), "I64"},
      {"dtype F64", entry("F64", {2}, 0, 16), "F64"},
      {"no dtype", {{"shape", {4}}, {"data_offsets", {0, 16}}}, "dtype"},
      {"no shape", {{"dtype", "F32"}, {"data_offsets", {0, 16}}}, "shape"},
      {"negative dimension",
       {{"dtype", "F32"}, {"shape", {-4}}, {"data_offsets", {0, 16}}},
       "shape"},
      {"fractional dimension",
       {{"dtype", "F32"}, {"shape", {2.5}}, {"data_offsets", {0, 16}}},
       "shape"},
      {"no data_offsets", {{"dtype", "F32"}, {"shape", {4}}}, "data_offsets"},
      {"three data_offsets",
       {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {0, 8, 16}}},
       "data_offsets"},
      {"negative offset",
       {{"dtype", "F32"}, {"shape", {1}}, {"data_offsets", {-4, 0}}},
       "data_offsets"},
      {"begin after end", entry("F32", {0}, 12, 8), "data_offsets"},
      {"end past the data", entry("F32", {4}, 4, 20), "data_offsets"},
      {"far past the data", entry("F32", {4}, 1ull << 40, (1ull << 40) + 16), "data_offsets"},
      {"byte count not the shape's", entry("F32", {2, 2}, 0, 12), "12 bytes"},
      {"F16 byte count", entry("F16", {4}, 0, 16), "16 bytes"},
      {"shape overflowing int64", entry("F32", {int64_t{1} << 62, 8}, 0, 16), "shape"},
      {"entry not an object", json::array({"F32"}), "not an object"},
  };
  for (const Case& c : cases) {
    INFO(c.what << ": " << c.info.dump());
    std::string message = read_error(dir, safetensors_bytes(json{{"bad.tensor", c.info}}, data));
    CHECK_THAT(message, Catch::Contains("'bad.tensor'"));
    CHECK_THAT(message, Catch::Contains(c.detail));
  }
}

TEST_CASE("safetensors: overlapping data_offsets name both tensors", "[safetensors]") {
  TempDir dir;
  const std::string data = f32_bytes({1, 2, 3, 4});
  json header = {{"first", entry("F32", {2}, 0, 8)}, {"second", entry("F32", {2}, 4, 12)}};
  std::string message = read_error(dir, safetensors_bytes(header, data));
  CHECK_THAT(message, Catch::Contains("'first'"));
  CHECK_THAT(message, Catch::Contains("'second'"));
  CHECK_THAT(message, Catch::Contains("overlap"));

  // The same two ranges listed in the other order, and one range inside another.
  json reversed = {{"b", entry("F32", {2}, 8, 16)}, {"a", entry("F32", {3}, 0, 12)}};
  CHECK_THAT(read_error(dir, safetensors_bytes(reversed, data)), Catch::Contains("overlap"));
  json nested = {{"outer", entry("F32", {4}, 0, 16)}, {"inner", entry("F32", {1}, 4, 8)}};
  CHECK_THAT(read_error(dir, safetensors_bytes(nested, data)), Catch::Contains("overlap"));

  // Adjacent ranges are fine.
  json adjacent = {{"a", entry("F32", {2}, 0, 8)}, {"b", entry("F32", {2}, 8, 16)}};
  const std::string path = dir.file("ok.safetensors");
  minimt::test::write_file(path, safetensors_bytes(adjacent, data));
  TensorStore store;
  CHECK_NOTHROW(read_safetensors(path, store));
  CHECK(values_of(store, "b") == std::vector<float>{3, 4});
}

// ---------------------------------------------------------------------------- hostile input

TEST_CASE("safetensors: deep nesting and oversized headers are refused before parsing",
          "[safetensors][hostile]") {
  TempDir dir;
  const std::string path = dir.file("model.safetensors");
  CHECK(read_error(dir, safetensors_bytes(std::string(5000000, '['), "")) ==
        path + ": nests arrays and objects more than 32 deep (at byte 32)");
  const std::string shape = std::string(100000, '[') + std::string(100000, ']');
  CHECK(read_error(dir, safetensors_bytes("{\"w\": {\"dtype\": \"F32\", \"shape\": " + shape + "}}",
                                          "")) ==
        path + ": tensor 'w' nests arrays and objects more than 32 deep (at byte 62)");
  // A header of 8 MiB + 1 inside a file that holds it: refused for its size alone.
  const uint64_t over = (8ull << 20) + 1;
  CHECK(read_error(dir, le64(over) + std::string(over, ' ')) ==
        path + ": claims a 8388609-byte header, more than the 8388608 bytes (8 MiB) minimt reads");
}

TEST_CASE("safetensors: untrusted names stay short and on one line", "[safetensors][hostile]") {
  TempDir dir;
  std::string message = read_error(
      dir, safetensors_bytes(json{{"a\nb", entry("I64", {1}, 0, 8)}}, std::string(8, '\0')));
  CHECK_THAT(message, Catch::Contains("tensor 'a\\x0ab' has dtype I64"));
  message = read_error(dir, safetensors_bytes(json{{"w", entry(std::string(5000, 'D'), {1}, 0, 4)}},
                                              std::string(4, '\0')));
  CHECK(message.size() < 300);
  CHECK_THAT(message, Catch::Contains("DDD..."));
}

TEST_CASE("safetensors: NaN and infinities are refused, naming the tensor and the element",
          "[safetensors][hostile]") {
  TempDir dir;
  const std::string path = dir.file("model.safetensors");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    std::string dtype, data, expected;
  };
  const std::vector<Case> cases = {
      {"F32", f32_bytes({1, 2, nan, 4}), "NaN at element 2 (F32)"},
      {"F32", f32_bytes({inf, 2, 3, 4}), "+inf at element 0 (F32)"},
      {"F32", f32_bytes({1, 2, 3, -inf}), "-inf at element 3 (F32)"},
      {"F16", u16_bytes({0x3c00, 0x7e00, 0, 0}), "NaN at element 1 (F16)"},
      {"F16", u16_bytes({0x3c00, 0, 0x7c00, 0}), "+inf at element 2 (F16)"},
      {"F16", u16_bytes({0xfc00, 0, 0, 0}), "-inf at element 0 (F16)"},
      {"BF16", u16_bytes({0, 0, 0, 0x7fc0}), "NaN at element 3 (BF16)"},
      {"BF16", u16_bytes({0, 0x7f80, 0, 0}), "+inf at element 1 (BF16)"},
      {"BF16", u16_bytes({0, 0, 0xff80, 0}), "-inf at element 2 (BF16)"},
  };
  for (const Case& c : cases) {
    INFO(c.dtype << " " << c.expected);
    json header = {{"ok", entry("F32", {1}, 0, 4)},
                   {"w", entry(c.dtype, {2, 2}, 4, 4 + c.data.size())}};
    CHECK(read_error(dir, safetensors_bytes(header, f32_bytes({1}) + c.data)) ==
          path + ": tensor 'w' holds " + c.expected + "; weights must be finite");
  }
  // The largest finite values are weights like any other.
  TensorStore store;
  minimt::test::write_file(path,
                           safetensors_bytes(json{{"w", entry("F32", {2}, 0, 8)}},
                                             f32_bytes({std::numeric_limits<float>::max(),
                                                        -std::numeric_limits<float>::max()})));
  CHECK_NOTHROW(read_safetensors(path, store));
}

TEST_CASE("first_non_finite finds the first bad value in any block", "[safetensors][hostile]") {
  std::vector<float> values(10000, 1.0f);
  CHECK(first_non_finite(values.data(), static_cast<int64_t>(values.size())) == -1);
  CHECK(first_non_finite(values.data(), 0) == -1);
  for (size_t index : {size_t(0), size_t(4095), size_t(4096), size_t(9999)}) {
    INFO(index);
    std::vector<float> copy = values;
    copy[index] = -std::numeric_limits<float>::infinity();
    if (index + 1 < copy.size()) copy.back() = std::numeric_limits<float>::quiet_NaN();
    CHECK(first_non_finite(copy.data(), static_cast<int64_t>(copy.size())) ==
          static_cast<int64_t>(index));
  }
  std::vector<float> tiny = {std::numeric_limits<float>::denorm_min(), -0.0f, 0.0f};
  CHECK(first_non_finite(tiny.data(), 3) == -1);
}

TEST_CASE("safetensors: I8 tensors are kept as stored, F16 widened only when found",
          "[safetensors]") {
  TempDir dir;
  const std::string q = {'\x7f', '\x81', '\x00', '\x05', '\xfe', '\x01'};  // 127 -127 0 5 -2 1
  json header = {{"a.weight", entry("I8", {2, 3}, 4, 10)}, {"h", entry("F16", {2}, 0, 4)}};
  const std::string path = dir.file("model.safetensors");
  minimt::test::write_file(path, safetensors_bytes(header, u16_bytes({0x3c00, 0xc000}) + q));
  TensorStore store;
  read_safetensors(path, store);
  const TensorView* weight = store.stored("a.weight");
  REQUIRE(weight != nullptr);
  CHECK(weight->dtype == DType::kI8);
  CHECK(weight->shape == Shape{2, 3});
  CHECK(weight->data == nullptr);
  const auto* values = static_cast<const int8_t*>(weight->raw);
  CHECK(std::vector<int>(values, values + 6) == std::vector<int>{127, -127, 0, 5, -2, 1});
  CHECK(store.find("a.weight")->data == nullptr);  // never widened: the binding dequantizes
  CHECK(store.stored("h")->data == nullptr);
  CHECK(store.stored("h")->dtype == DType::kF16);
  CHECK(values_of(store, "h") == std::vector<float>{1.0f, -2.0f});
  CHECK(store.stored("h")->data != nullptr);  // widened once, kept
}

TEST_CASE("safetensors: I8 byte counts are checked like any dtype's", "[safetensors]") {
  TempDir dir;
  json header = {{"a.weight", entry("I8", {2, 3}, 0, 5)}};
  CHECK_THAT(read_error(dir, safetensors_bytes(header, std::string(5, '\0'))),
             Catch::Contains("tensor 'a.weight' has 5 bytes but shape [2, 3] of I8 needs 6"));
}
