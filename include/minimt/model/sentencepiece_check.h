// A SentencePiece model file is untrusted input, and SentencePiece trusts it: a crafted
// normalizer charsmap makes it read memory that is not its own, an unknown model type makes it
// dereference a null pointer. This checks what SentencePiece (Debian's 0.1.97) relies on before
// it parses the file: the protobuf's structure (ModelProto in sentencepiece_model.proto: every
// field whole, the fields SentencePiece reads of the type it expects, each singular one once),
// the pieces (text, score, type, how many, how long), the model type, the user-defined pieces
// that prefix one another, the self-test sentences it encodes while loading, and the charsmaps
// of the normalizer and denormalizer (charsmap_check.h).
#pragma once

#include <string>
#include <string_view>

namespace minimt {

// Bounds on what a model file may hold (docs/robustness.md); the largest real vocabularies have
// about 256,000 pieces, and SentencePiece's trainer writes pieces of at most 512 characters.
constexpr size_t kMaxSentencePiecePieces = 1 << 19;
constexpr size_t kMaxSentencePiecePieceBytes = 2048;
constexpr size_t kMaxCharsmapBytes = 4 << 20;
constexpr size_t kMaxSelfTestBytes = 1 << 20;
// SentencePiece's prefix matcher for user-defined pieces keeps 64 matches on its stack.
constexpr size_t kMaxNestedUserPieces = 64;

// Throws ModelError(file, "is not a SentencePiece model minimt can use: ...") naming the field
// (as "pieces[3].type" or "normalizer_spec.precompiled_charsmap") and what is wrong with it.
void check_sentencepiece_model(std::string_view bytes, const std::string& file);

}  // namespace minimt
