// The protobuf wire format, read field by field without generated code: enough to check a
// SentencePiece model file (sentencepiece_check.h) before SentencePiece's own parser trusts it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "minimt/base/error.h"

namespace minimt::protobuf {

enum class WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;     // kVarint: the value
  std::string_view bytes;  // kLength: the payload; kFixed32, kFixed64: the 4 or 8 bytes
  size_t offset = 0;       // of the field's tag, counted from the start of the file
  size_t end = 0;          // just past the field, counted the same way
};

// Bytes that are not a whole protobuf message; what() says where ("at byte N: ...").
class WireError : public Error {
 public:
  using Error::Error;
};

// The fields of one message, in the order written. next() throws WireError at a tag, varint or
// length the bytes do not hold whole, at field number 0, and at a group (wire types 3 and 4,
// which no SentencePiece message uses) or an undefined wire type (6, 7).
class MessageReader {
 public:
  // `offset`: where `message` starts in the file, for messages.
  MessageReader(std::string_view message, size_t offset) : data_(message), base_(offset) {}
  bool next(Field& field);

 private:
  std::string_view data_;
  size_t base_;
  size_t at_ = 0;

  uint64_t read_varint(const char* what);
  [[noreturn]] void fail(size_t at, const std::string& what) const;
};

// The name of a wire type for messages: "a varint", "a length-delimited field", ...
std::string wire_type_name(WireType type);

}  // namespace minimt::protobuf
