#include "minimt/model/protobuf_wire.h"

namespace minimt::protobuf {

void MessageReader::fail(size_t at, const std::string& what) const {
  throw WireError("at byte " + std::to_string(base_ + at) + ": " + what);
}

uint64_t MessageReader::read_varint(const char* what) {
  const size_t start = at_;
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {  // at most 10 bytes, as protobuf reads them
    if (at_ >= data_.size()) fail(start, std::string(what) + " runs past the end of its message");
    const auto byte = static_cast<uint8_t>(data_[at_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) return value;
  }
  fail(start, std::string(what) + " is longer than 10 bytes");
}

bool MessageReader::next(Field& field) {
  if (at_ >= data_.size()) return false;
  field.offset = base_ + at_;
  const size_t tag_at = at_;
  const uint64_t tag = read_varint("a field tag");
  field.number = static_cast<uint32_t>(tag >> 3);
  if (tag >> 3 == 0 || tag >> 3 > (1u << 29) - 1)
    fail(tag_at, "field number " + std::to_string(tag >> 3) + " is not a protobuf field number");
  const int type = static_cast<int>(tag & 7);
  switch (type) {
    case 0:
      field.type = WireType::kVarint;
      field.varint = read_varint("a varint");
      field.end = base_ + at_;
      return true;
    case 1:
    case 5: {
      field.type = type == 1 ? WireType::kFixed64 : WireType::kFixed32;
      const size_t size = type == 1 ? 8 : 4;
      if (data_.size() - at_ < size)
        fail(tag_at, "field " + std::to_string(field.number) + " runs past the end of its message");
      field.bytes = data_.substr(at_, size);
      at_ += size;
      field.end = base_ + at_;
      return true;
    }
    case 2: {
      field.type = WireType::kLength;
      const uint64_t size = read_varint("a length");
      if (size > data_.size() - at_)
        fail(tag_at, "field " + std::to_string(field.number) + " claims " + std::to_string(size) +
                         " bytes but its message has " + std::to_string(data_.size() - at_) +
                         " left");
      field.bytes = data_.substr(at_, static_cast<size_t>(size));
      at_ += static_cast<size_t>(size);
      field.end = base_ + at_;
      return true;
    }
    default:
      fail(tag_at, "field " + std::to_string(field.number) + " has wire type " +
                       std::to_string(type) +
                       (type == 3 || type == 4 ? " (a group, which SentencePiece never writes)"
                                               : ", which protobuf does not define"));
  }
}

std::string wire_type_name(WireType type) {
  switch (type) {
    case WireType::kVarint:
      return "a varint";
    case WireType::kFixed64:
      return "a 64-bit value";
    case WireType::kLength:
      return "a length-delimited value";
    case WireType::kFixed32:
      return "a 32-bit value";
  }
  return "an unknown wire type";
}

}  // namespace minimt::protobuf
