// TensorStore: named tensors, either views into a memory-mapped file or owned buffers. Float
// tensors read as float32; F16 and BF16 ones are widened the first time find() is asked for them,
// so a weight packed straight from the file (stored()) never gets a float32 copy.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "minimt/base/enum_names.h"
#include "minimt/engine/packed_gemm.h"

namespace minimt {

using Shape = std::vector<int64_t>;

std::string shape_to_string(const Shape& shape);
int64_t element_count(const Shape& shape);

// How a tensor is stored in its file (inline tensors and owned buffers are kF32).
enum class DType { kF32, kF16, kBf16, kI8 };
// As safetensors headers name them.
inline constexpr EnumName<DType> kDTypeNames[] = {
    {"F32", DType::kF32}, {"F16", DType::kF16}, {"BF16", DType::kBf16}, {"I8", DType::kI8}};
std::string to_string(DType dtype);
size_t dtype_bytes(DType dtype);

struct TensorView {
  Shape shape;
  // Row-major, element_count(shape) floats; null for an I8 tensor, and for an F16 or BF16 one
  // until find() widens it.
  const float* data = nullptr;
  DType dtype = DType::kF32;
  const void* raw = nullptr;  // the values as stored (dtype), little-endian; == data for F32
};

// A read-only memory mapping of a whole file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws ModelError naming the path
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Drops the whole pages inside [begin, begin + bytes) from memory (madvise DONTNEED).
  void release(const void* begin, size_t bytes) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Index of the first NaN or infinity among count floats, or -1. One pass, no branches per value.
int64_t first_non_finite(const float* data, int64_t count);

// "NaN", "+inf" or "-inf" for a non-finite value.
std::string non_finite_text(float value);

class TensorStore {
 public:
  // Adds a view into memory that the store keeps alive (a mapping or an owned buffer).
  void add_view(const std::string& name, Shape shape, const float* data);
  // Adds a view of values stored as `dtype` (F16, BF16: widened on first find(); I8: never).
  void add_raw(const std::string& name, Shape shape, DType dtype, const void* raw);
  // Adds a tensor whose values the store owns.
  void add_owned(const std::string& name, Shape shape, std::vector<float> values);
  void keep_alive(std::shared_ptr<MappedFile> file) { files_.push_back(std::move(file)); }

  // The tensor, with `data` set for every float dtype (widening an F16 or BF16 one once, here:
  // the store's contents are fixed, only their float32 form is made on demand). Null if absent.
  const TensorView* find(const std::string& name) const;
  // Whether any tensor is stored as `dtype`.
  bool holds(DType dtype) const;
  // The tensor as stored, without widening it. Null if absent.
  const TensorView* stored(const std::string& name) const;
  // Keeps `values` alive as long as the store and returns them (a dequantized weight).
  const float* own(std::vector<float> values) const;

  // Tells the kernel that `bytes` at data, if they lie in a mapped file, will not be read
  // again soon (they were copied elsewhere), so their pages stop counting as resident memory.
  // Reading them later is still correct: the pages come back from the file.
  void release(const void* data, size_t bytes) const;
  const std::map<std::string, TensorView>& all() const { return tensors_; }

 private:
  // mutable: find() fills in the float32 form of F16 and BF16 tensors when first asked.
  mutable std::map<std::string, TensorView> tensors_;
  mutable std::deque<std::vector<float>> owned_;  // deque: growing it never moves earlier buffers
  // Where find() widens F16 and BF16 tensors: blocks of huge pages, filled in order, so that
  // the embedding tables cost a page fault or two instead of one per 4 KiB.
  mutable std::deque<std::unique_ptr<PackedArena>> widened_;
  mutable size_t widened_free_ = 0;  // floats left at the end of widened_.back()
  float* widened_room(size_t count) const;
  std::vector<std::shared_ptr<MappedFile>> files_;
};

// Reads `{"name": {"shape": [...], "data": [...]}, ...}`; `file` names config.json in errors.
void read_inline_tensors(const nlohmann::json& tensors, const std::string& file,
                         TensorStore& store);

}  // namespace minimt
