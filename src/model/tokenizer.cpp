#include "minimt/model/tokenizer.h"

#include <sentencepiece_processor.h>

#include <algorithm>

#include "minimt/base/error.h"
#include "minimt/model/paths.h"
#include "minimt/model/sentencepiece_check.h"

namespace minimt {
namespace {

// SentencePiece reads the whole file into memory; the largest real vocabularies (250,000
// pieces) take a few MiB.
constexpr size_t kMaxTokenizerBytes = 64u << 20;

}  // namespace

Tokenizer::Tokenizer(const std::string& path)
    : path_(path), processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  // Read once, checked, and handed over as bytes: the file cannot change in between.
  const std::string bytes = read_regular_file(path, kMaxTokenizerBytes);
  check_sentencepiece_model(bytes, path);
  auto status = processor_->LoadFromSerializedProto(bytes);
  if (!status.ok())
    throw ModelError(path,
                     "is not a SentencePiece model that can be loaded (" + status.ToString() + ")");
}

Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

void Tokenizer::read_as_unknown_from(int first, int unk) {
  unknown_from_ = first;
  unk_ = unk;
}

std::vector<int> Tokenizer::encode(const std::string& text) const {
  std::vector<int> ids;
  auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw InputError("cannot tokenize the input: " + status.ToString());
  if (unknown_from_ >= 0)
    for (int& id : ids)
      if (id >= unknown_from_) id = unk_;
  return ids;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  std::string text;
  auto status = processor_->Decode(ids, &text);
  if (!status.ok()) throw Error(path_ + ": cannot decode ids: " + status.ToString());
  return text;
}

std::vector<std::string> Tokenizer::unknown_words(const std::string& text) const {
  std::vector<std::string> words;
  size_t word_end = 0;  // where the word taken last ends: its other unknown pieces add nothing
  const auto encoded = processor_->EncodeAsImmutableProto(text);
  for (const auto& piece : encoded.pieces()) {
    const int id = static_cast<int>(piece.id());
    if (!processor_->IsUnknown(id) && !(unknown_from_ >= 0 && id >= unknown_from_)) continue;
    // SentencePiece's offsets are into text, as the user wrote it (its own normalization is
    // mapped back); the word around them is what they typed. Each byte is looked at once.
    size_t begin = std::min<size_t>(piece.begin(), text.size());
    const size_t end = std::min<size_t>(piece.end(), text.size());
    while (begin < end && text[begin] == ' ') ++begin;
    if (!words.empty() && begin < word_end) continue;
    size_t start = begin;
    while (start > word_end && text[start - 1] != ' ') --start;
    const size_t stop = std::min(text.find(' ', begin), text.size());
    if (stop > start) words.push_back(text.substr(start, stop - start));
    word_end = stop;
  }
  return words;
}

bool Tokenizer::is_unknown(int id) const {
  return processor_->IsUnknown(id);
}

std::string Tokenizer::piece(int id) const {
  return processor_->IdToPiece(id);
}

int Tokenizer::size() const {
  return processor_->GetPieceSize();
}

}  // namespace minimt
