#include "minimt/model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "minimt/base/error.h"
#include "minimt/base/half_float.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {
namespace {

// A header larger than this is not a header: refuse it instead of allocating for it. The most
// tensors format v1 names (43,000 for 1,024 layers in each stack) take under 6 MiB of header;
// parsed, a header costs up to about 25 bytes of memory and 0.15 us per byte.
constexpr uint64_t kMaxHeaderBytes = 8ull << 20;

float bf16_to_float(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

struct Entry {
  std::string name;
  std::string dtype;
  Shape shape;
  uint64_t begin = 0, end = 0;
};

size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

Entry parse_entry(const std::string& path, const std::string& name, const nlohmann::json& info,
                  uint64_t data_size) {
  auto fail = [&](const std::string& what) {
    throw ModelError(path, "tensor '" + printable(name) + "' " + what);
  };
  Entry entry;
  entry.name = name;
  if (!info.is_object()) fail("has a header entry that is not an object");
  if (!info.contains("dtype") || !info["dtype"].is_string()) fail("has no dtype");
  entry.dtype = info["dtype"].get<std::string>();
  size_t size = dtype_size(entry.dtype);
  if (size == 0) fail("has dtype " + printable(entry.dtype) + "; minimt reads F32, F16 and BF16");
  if (!info.contains("shape") || !info["shape"].is_array()) fail("has no shape");
  for (const auto& dim : info["shape"]) {
    if (!dim.is_number_unsigned()) fail("has a shape entry that is not a non-negative integer");
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
         shape_to_string(entry.shape) + " of " + entry.dtype + " needs " +
         (count < 0 ? std::string("more than fits") : std::to_string(count * size)));
  return entry;
}

// Adds one tensor (F32 in place when aligned, else widened or copied), refusing NaN and
// infinities: one would spread through every sum and turn each translation into padding.
void add_tensor(const std::string& path, const Entry& entry, const uint8_t* source,
                TensorStore& store) {
  const size_t count = static_cast<size_t>(element_count(entry.shape));
  const float* floats = nullptr;
  if (entry.dtype == "F32" && reinterpret_cast<uintptr_t>(source) % alignof(float) == 0) {
    floats = reinterpret_cast<const float*>(source);
    store.add_view(entry.name, entry.shape, floats);  // used in place, straight from the mapping
  } else {
    std::vector<float> values(count);
    if (entry.dtype == "F32")
      std::memcpy(values.data(), source, count * sizeof(float));
    else if (entry.dtype == "F16")
      widen_halves(source, count, values.data());
    else
      for (size_t i = 0; i < count; ++i) values[i] = bf16_to_float(load_u16(source + 2 * i));
    floats = values.data();  // the buffer moves into the store, its data stays put
    store.add_owned(entry.name, entry.shape, std::move(values));
  }
  if (int64_t bad = first_non_finite(floats, static_cast<int64_t>(count)); bad >= 0)
    throw ModelError(path, "tensor '" + printable(entry.name) + "' holds " +
                               non_finite_text(floats[bad]) + " at element " + std::to_string(bad) +
                               " (" + entry.dtype + "); weights must be finite");
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
                           "has a header that is not valid JSON", "tensor");
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
