// TensorStore: named float tensors, either views into a memory-mapped file or owned buffers.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace minimt {

using Shape = std::vector<int64_t>;

std::string shape_to_string(const Shape& shape);
int64_t element_count(const Shape& shape);

struct TensorView {
  Shape shape;
  const float* data = nullptr;  // row-major, element_count(shape) floats
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
  // Adds a tensor whose values the store owns.
  void add_owned(const std::string& name, Shape shape, std::vector<float> values);
  void keep_alive(std::shared_ptr<MappedFile> file) { files_.push_back(std::move(file)); }

  const TensorView* find(const std::string& name) const;

  // Tells the kernel that count floats at data, if they lie in a mapped file, will not be read
  // again soon (they were copied elsewhere), so their pages stop counting as resident memory.
  // Reading them later is still correct: the pages come back from the file.
  void release(const float* data, int64_t count) const;
  const std::map<std::string, TensorView>& all() const { return tensors_; }

 private:
  std::map<std::string, TensorView> tensors_;
  std::deque<std::vector<float>> owned_;  // deque: growing it never moves earlier buffers
  std::vector<std::shared_ptr<MappedFile>> files_;
};

// Reads `{"name": {"shape": [...], "data": [...]}, ...}`; `file` names config.json in errors.
void read_inline_tensors(const nlohmann::json& tensors, const std::string& file,
                         TensorStore& store);

}  // namespace minimt
