#include "minimt/model/tensor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include "minimt/base/error.h"
#include "minimt/base/half_float.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {

std::string shape_to_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

int64_t element_count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0 || (dim > 0 && count > std::numeric_limits<int64_t>::max() / dim)) return -1;
    count *= dim;
  }
  return count;
}

std::string to_string(DType dtype) {
  return enum_name(kDTypeNames, dtype);
}

size_t dtype_bytes(DType dtype) {
  return dtype == DType::kF32 ? 4 : dtype == DType::kI8 ? 1 : 2;
}

namespace {

// Exponent bits all set: infinity or NaN.
bool exponent_all_ones(const float* value) {
  uint32_t bits;
  std::memcpy(&bits, value, sizeof bits);
  return (bits & 0x7f800000u) == 0x7f800000u;
}

}  // namespace

int64_t first_non_finite(const float* data, int64_t count) {
  constexpr int64_t kBlock = 4096;  // a whole block is tested without branches (vectorized)
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t end = std::min(count, start + kBlock);
    bool any = false;
    for (int64_t i = start; i < end; ++i) any |= exponent_all_ones(data + i);
    if (!any) continue;
    for (int64_t i = start; i < end; ++i)
      if (exponent_all_ones(data + i)) return i;
  }
  return -1;
}

std::string non_finite_text(float value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "+inf" : "-inf";
}

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // never wait on a FIFO
  if (fd < 0) throw ModelError(path, std::string("cannot open the file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw ModelError(path, "is not a regular file");
  }
  size_ = static_cast<size_t>(info.st_size);
  if (size_ > 0) {
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      ::close(fd);
      throw ModelError(path, std::string("cannot map the file: ") + std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(mapped);
  }
  ::close(fd);
}

void MappedFile::release(const void* begin, size_t bytes) const {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto first = (reinterpret_cast<uintptr_t>(begin) + page - 1) / page * page;
  const auto last = (reinterpret_cast<uintptr_t>(begin) + bytes) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void TensorStore::add_view(const std::string& name, Shape shape, const float* data) {
  tensors_[name] = TensorView{std::move(shape), data, DType::kF32, data};
}

void TensorStore::add_raw(const std::string& name, Shape shape, DType dtype, const void* raw) {
  tensors_[name] = TensorView{std::move(shape), nullptr, dtype, raw};
}

const float* TensorStore::own(std::vector<float> values) const {
  owned_.push_back(std::move(values));
  return owned_.back().data();
}

void TensorStore::add_owned(const std::string& name, Shape shape, std::vector<float> values) {
  owned_.push_back(std::move(values));
  add_view(name, std::move(shape), owned_.back().data());
}

void TensorStore::release(const void* data, size_t bytes) const {
  const auto* begin = static_cast<const uint8_t*>(data);
  for (const auto& file : files_)
    if (begin >= file->data() && begin < file->data() + file->size()) file->release(begin, bytes);
}

const TensorView* TensorStore::stored(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

bool TensorStore::holds(DType dtype) const {
  for (const auto& entry : tensors_)
    if (entry.second.dtype == dtype) return true;
  return false;
}

const TensorView* TensorStore::find(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return nullptr;
  TensorView& view = it->second;
  if (view.data || view.dtype == DType::kI8) return &view;
  const size_t count = static_cast<size_t>(element_count(view.shape));
  float* values = widened_room(count);
  const auto* source = static_cast<const uint8_t*>(view.raw);
  if (view.dtype == DType::kF16) {
    widen_halves(source, count, values);
  } else {
    widen_bf16(source, count, values);
  }
  view.data = values;
  return &view;
}

float* TensorStore::widened_room(size_t count) const {
  constexpr size_t kBlockFloats = (2u << 20) / sizeof(float);  // one huge page
  count = (count + 15) / 16 * 16;                              // each tensor starts 64-byte aligned
  if (widened_.empty() || widened_free_ < count) {
    widened_.push_back(std::make_unique<PackedArena>(std::max(count, kBlockFloats)));
    widened_free_ = widened_.back()->bytes() / sizeof(float);
  }
  float* room = widened_.back()->data() + widened_.back()->bytes() / sizeof(float) - widened_free_;
  widened_free_ -= count;
  return room;
}

void read_inline_tensors(const nlohmann::json& tensors, const std::string& file,
                         TensorStore& store) {
  for (const auto& [name, tensor] : tensors.items()) {
    auto fail = [&, &name = name](const std::string& what) {
      throw ModelError(file, "inline tensor '" + printable(name) + "' " + what);
    };
    if (!tensor.is_object() || !tensor.contains("shape") || !tensor.contains("data"))
      fail("must be an object with \"shape\" and \"data\"");
    for (const std::string& key : unknown_keys(tensor, {"shape", "data"}))
      fail("has key '" + printable(key) + "'; an inline tensor holds only \"shape\" and \"data\"");
    const auto& shape_json = tensor["shape"];
    const auto& data_json = tensor["data"];
    if (!shape_json.is_array()) fail("has a shape that is not an array");
    Shape shape;
    for (const auto& dim : shape_json) {
      // Compared unsigned: 2^64-1 read as a long long would be -1.
      if (!dim.is_number_integer() || (!dim.is_number_unsigned() && dim.get<long long>() < 0))
        fail("has a shape entry that is not a non-negative integer, got " + describe_json(dim));
      if (dim.get<unsigned long long>() > (1ull << 31) - 1)
        fail("has a shape entry of " + describe_json(dim) +
             ", past 2^31-1, larger than any minimt model's tensor");
      shape.push_back(dim.get<int64_t>());
    }
    int64_t count = element_count(shape);
    if (!data_json.is_array()) fail("has data that is not an array");
    if (count < 0 || static_cast<int64_t>(data_json.size()) != count)
      fail("has " + std::to_string(data_json.size()) + " values but shape " +
           shape_to_string(shape) + " needs " + std::to_string(count));
    std::vector<float> values;
    values.reserve(data_json.size());
    for (const auto& value : data_json) {
      if (!value.is_number()) fail("has a value that is not a number");
      values.push_back(value.get<float>());
    }
    // A JSON number past the float range (1e39) becomes an infinity here.
    if (int64_t bad = first_non_finite(values.data(), count); bad >= 0)
      fail("has " + non_finite_text(values[bad]) + " at element " + std::to_string(bad) + " (" +
           describe_json(data_json[bad]) + "); weights must be finite floats");
    store.add_owned(name, std::move(shape), std::move(values));
  }
}

}  // namespace minimt
