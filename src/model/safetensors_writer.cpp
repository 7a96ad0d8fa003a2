#include "minimt/model/safetensors_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "minimt/base/error.h"

namespace minimt {
namespace {

size_t bytes_of(const TensorToWrite& tensor) {
  return static_cast<size_t>(element_count(tensor.shape)) * dtype_bytes(tensor.dtype);
}

// Widest dtype first (F32, then F16 and BF16, then I8), by name within one width.
std::vector<const TensorToWrite*> in_file_order(const std::vector<TensorToWrite>& tensors) {
  std::vector<const TensorToWrite*> order;
  for (const auto& tensor : tensors) order.push_back(&tensor);
  std::sort(order.begin(), order.end(), [](const TensorToWrite* a, const TensorToWrite* b) {
    const size_t wa = dtype_bytes(a->dtype), wb = dtype_bytes(b->dtype);
    return wa != wb ? wa > wb : a->name < b->name;
  });
  return order;
}

std::string header_of(const std::vector<const TensorToWrite*>& order,
                      const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  size_t offset = 0;
  for (const TensorToWrite* tensor : order) {
    const size_t bytes = bytes_of(*tensor);
    header[tensor->name] = {{"dtype", to_string(tensor->dtype)},
                            {"shape", tensor->shape},
                            {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text += ' ';
  return text;
}

}  // namespace

size_t write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                         const std::map<std::string, std::string>& metadata) {
  const auto order = in_file_order(tensors);
  const std::string header = header_of(order, metadata);
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), std::fclose);
  auto fail = [&]() -> void {
    throw IoError(path + ": cannot write: " + std::strerror(errno ? errno : EIO));
  };
  if (!file) fail();
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(header.size() >> (8 * i));
  size_t written = 8 + header.size();
  if (std::fwrite(length, 1, 8, file.get()) != 8 ||
      std::fwrite(header.data(), 1, header.size(), file.get()) != header.size())
    fail();
  for (const TensorToWrite* tensor : order) {
    const size_t bytes = bytes_of(*tensor);
    if (bytes && std::fwrite(tensor->data, 1, bytes, file.get()) != bytes) fail();
    written += bytes;
  }
  errno = 0;
  if (std::fflush(file.get()) != 0 || std::ferror(file.get())) fail();
  if (std::fclose(file.release()) != 0) fail();
  return written;
}

}  // namespace minimt
