#include "minimt/model/tensor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "minimt/base/error.h"

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

MappedFile::MappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
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
  tensors_[name] = TensorView{std::move(shape), data};
}

void TensorStore::add_owned(const std::string& name, Shape shape, std::vector<float> values) {
  owned_.push_back(std::move(values));
  add_view(name, std::move(shape), owned_.back().data());
}

void TensorStore::release(const float* data, int64_t count) const {
  const auto* begin = reinterpret_cast<const uint8_t*>(data);
  for (const auto& file : files_)
    if (begin >= file->data() && begin < file->data() + file->size())
      file->release(begin, static_cast<size_t>(count) * sizeof(float));
}

const TensorView* TensorStore::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

void read_inline_tensors(const nlohmann::json& tensors, const std::string& file,
                         TensorStore& store) {
  for (const auto& [name, tensor] : tensors.items()) {
    auto fail = [&, &name = name](const std::string& what) {
      throw ModelError(file, "inline tensor '" + name + "' " + what);
    };
    if (!tensor.is_object() || !tensor.contains("shape") || !tensor.contains("data"))
      fail("must be an object with \"shape\" and \"data\"");
    const auto& shape_json = tensor["shape"];
    const auto& data_json = tensor["data"];
    if (!shape_json.is_array()) fail("has a shape that is not an array");
    Shape shape;
    for (const auto& dim : shape_json) {
      if (!dim.is_number_integer() || dim.get<long long>() < 0)
        fail("has a shape entry that is not a non-negative integer");
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
    store.add_owned(name, std::move(shape), std::move(values));
  }
}

}  // namespace minimt
