#include "minimt/model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "minimt/base/error.h"
#include "minimt/base/half_float.h"
#include "minimt/model/json_dom_builder.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {
namespace {

// A header larger than this is not a header: refuse it instead of allocating for it. The most
// tensors format v1 names (43,000 for 1,024 layers in each stack) take under 6 MiB of header;
// parsed, a header costs up to about 25 bytes of memory and 0.15 us per byte.
constexpr uint64_t kMaxHeaderBytes = 8ull << 20;
// No tensor of a minimt model has a dimension near this (the largest, a vocabulary with its
// unknown pieces, is at most 2^25); a larger one would overflow the element count's arithmetic
// before the byte count refused it.
constexpr uint64_t kMaxDimension = (1ull << 31) - 1;
const std::vector<std::string> kEntryKeys = {"dtype", "shape", "data_offsets"};

uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

// Index of the first half (F16: exponent 0x7c00, BF16: 0x7f80) whose exponent bits are all set,
// an infinity or a NaN, or -1. Blocks are tested without branches, on whole 16-bit loads (which
// the compiler vectorizes; safetensors is little-endian, as every CPU minimt builds for).
int64_t first_non_finite_half(const uint8_t* data, int64_t count, uint16_t exponent) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "halves are read as stored");
  constexpr int64_t kBlock = 4096;
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t end = std::min(count, start + kBlock);
    uint16_t block[kBlock];
    std::memcpy(block, data + 2 * start, static_cast<size_t>(end - start) * 2);
    unsigned hits = 0;
    for (int64_t i = 0; i < end - start; ++i) hits |= (block[i] & exponent) == exponent;
    if (!hits) continue;
    for (int64_t i = start; i < end; ++i)
      if ((load_u16(data + 2 * i) & exponent) == exponent) return i;
  }
  return -1;
}

struct Entry {
  std::string name;
  DType dtype = DType::kF32;
  Shape shape;
  uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& info,
                  uint64_t data_size) {
  auto fail = [&](const std::string& what) {
    throw ModelError(path, "tensor '" + printable(name) + "' " + what);
  };
  Entry entry;
  entry.name = name;
  if (!info.is_object()) fail("has a header entry that is not an object");
  for (const std::string& key : unknown_keys(info, kEntryKeys)) {
    const std::string near = closest_key(key, kEntryKeys);
    fail("has key '" + printable(key) + "', which safetensors does not define" +
         (near.empty() ? " (an entry holds dtype, shape and data_offsets)"
                       : " (did you mean '" + near + "'?)"));
  }
  if (!info.contains("dtype") || !info["dtype"].is_string()) fail("has no dtype");
  const std::string dtype = info["dtype"].get<std::string>();
  if (!enum_value(kDTypeNames, dtype, entry.dtype))
    fail("has dtype " + printable(dtype) + "; minimt reads F32, F16, BF16 and I8");
  const size_t size = dtype_bytes(entry.dtype);
  if (!info.contains("shape") || !info["shape"].is_array()) fail("has no shape");
  for (const auto& dim : info["shape"]) {
    if (!dim.is_number_unsigned()) fail("has a shape entry that is not a non-negative integer");
    if (dim.get<uint64_t>() > kMaxDimension)
      fail("has shape " + printable(info["shape"].dump()) + ", a dimension past " +
           std::to_string(kMaxDimension) + " (2^31-1), larger than any minimt model's tensor");
    entry.shape.push_back(dim.get<int64_t>());
  }
  const auto& offsets = info.contains("data_offsets") ? info["data_offsets"] : nlohmann::json();
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail("needs data_offsets [begin, end]");
  entry.begin = offsets[0].get<uint64_t>();
  entry.end = offsets[1].get<uint64_t>();
  if (entry.begin > entry.end || entry.end > data_size)
    fail("has data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
         "] outside the " + std::to_string(data_size) + " data bytes of the file");
  int64_t count = element_count(entry.shape);
  if (count < 0 || static_cast<uint64_t>(count) > data_size ||
      entry.end - entry.begin != static_cast<uint64_t>(count) * size)
    fail("has " + std::to_string(entry.end - entry.begin) + " bytes but shape " +
         shape_to_string(entry.shape) + " of " + to_string(entry.dtype) + " needs " +
         (count < 0 ? std::string("more than fits") : std::to_string(count * size)));
  return entry;
}

[[noreturn]] void fail_non_finite(const std::string& path, const Entry& entry, float value,
                                  int64_t index) {
  throw ModelError(path, "tensor '" + printable(entry.name) + "' holds " + non_finite_text(value) +
                             " at element " + std::to_string(index) + " (" +
                             to_string(entry.dtype) + "); weights must be finite");
}

// Adds one tensor, refusing NaN and infinities: one would spread through every sum and turn each
// translation into padding. F32 is used in place when aligned (else copied); F16 and BF16 stay in
// the mapping, checked here on their bits and widened only if asked for (TensorStore::find); I8
// (a quantized Linear weight, checked by the weight binding) is used in place.
void add_tensor(const std::string& path, const Entry& entry, const uint8_t* source,
                TensorStore& store) {
  const size_t count = static_cast<size_t>(element_count(entry.shape));
  if (entry.dtype == DType::kF16 || entry.dtype == DType::kBf16) {
    const bool f16 = entry.dtype == DType::kF16;
    const int64_t bad =
        first_non_finite_half(source, static_cast<int64_t>(count), f16 ? 0x7c00 : 0x7f80);
    if (bad >= 0) {
      const uint16_t half = load_u16(source + 2 * bad);
      fail_non_finite(path, entry, f16 ? half_to_float(half) : bf16_to_float(half), bad);
    }
    store.add_raw(entry.name, entry.shape, entry.dtype, source);
    return;
  }
  if (entry.dtype == DType::kI8) {
    store.add_raw(entry.name, entry.shape, entry.dtype, source);
    return;
  }
  const float* floats = reinterpret_cast<const float*>(source);
  if (reinterpret_cast<uintptr_t>(source) % alignof(float) == 0) {
    store.add_view(entry.name, entry.shape, floats);  // used in place, straight from the mapping
  } else {
    std::vector<float> values(count);
    std::memcpy(values.data(), source, count * sizeof(float));
    floats = values.data();  // the buffer moves into the store, its data stays put
    store.add_owned(entry.name, entry.shape, std::move(values));
  }
  if (int64_t bad = first_non_finite(floats, static_cast<int64_t>(count)); bad >= 0)
    fail_non_finite(path, entry, floats[bad], bad);
}

// "tensor 'W'", "tensor 'W' key 'dtype'", "__metadata__" or "__metadata__ key 'k'" for a
// message.
std::string name_header_key(const std::vector<std::string>& path) {
  if (path.at(0) == "__metadata__")
    return path.size() > 1 ? "__metadata__ key '" + json_path_text(path, 1) + "'" : "__metadata__";
  return "tensor '" + printable(path.at(0)) + "'" +
         (path.size() > 1 ? " key '" + json_path_text(path, 1) + "'" : "");
}

}  // namespace

void read_safetensors(const std::string& path, TensorStore& store) {
  auto file = std::make_shared<MappedFile>(path);
  const uint8_t* bytes = file->data();
  if (file->size() < 8) throw ModelError(path, "is too short to be a safetensors file");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];
  if (header_size > file->size() - 8)
    throw ModelError(path, "claims a " + std::to_string(header_size) +
                               "-byte header but the file has " + std::to_string(file->size()) +
                               " bytes");
  if (header_size > kMaxHeaderBytes)
    throw ModelError(path, "claims a " + std::to_string(header_size) +
                               "-byte header, more than the " + std::to_string(kMaxHeaderBytes) +
                               " bytes (8 MiB) minimt reads");
  nlohmann::json header =
      parse_untrusted_json(reinterpret_cast<const char*>(bytes + 8), header_size, path,
                           "has a header that is not valid JSON", name_header_key);
  if (!header.is_object()) throw ModelError(path, "has a header that is not a JSON object");

  const uint8_t* data = bytes + 8 + header_size;
  uint64_t data_size = file->size() - 8 - header_size;
  std::vector<Entry> entries;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) throw ModelError(path, "has __metadata__ that is not an object");
      for (const auto& [key, value] : info.items())
        if (!value.is_string())
          throw ModelError(path,
                           "has __metadata__ key '" + printable(key) + "' that is not a string");
      continue;
    }
    entries.push_back(parse_entry(path, name, info, data_size));
  }

  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i].begin < entries[i - 1].end)
      throw ModelError(path, "tensor '" + printable(entries[i].name) + "' overlaps tensor '" +
                                 printable(entries[i - 1].name) + "' in the data section");

  for (const Entry& entry : entries) add_tensor(path, entry, data + entry.begin, store);
  store.keep_alive(std::move(file));
}

}  // namespace minimt
