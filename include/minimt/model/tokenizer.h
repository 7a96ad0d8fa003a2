// A SentencePiece model for one side of the translator.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace minimt {

class Tokenizer {
 public:
  explicit Tokenizer(const std::string& path);  // throws ModelError naming the path
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // Pieces from `first` on are read as `unk` by encode() and count as unknown (format v2's
  // unknown_pieces: pieces the model's vocabulary lacks).
  void read_as_unknown_from(int first, int unk);

  std::vector<int> encode(const std::string& text) const;
  std::string decode(const std::vector<int>& ids) const;
  // The words of text (white space already made ' ', normalize_input) that hold a part
  // encode() turns into the unknown piece, whole and as written: "café", not its "é".
  std::vector<std::string> unknown_words(const std::string& text) const;
  bool is_unknown(int id) const;
  std::string piece(int id) const;
  int size() const;

 private:
  std::string path_;       // for messages
  int unknown_from_ = -1;  // -1: every piece is its own id
  int unk_ = 0;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> processor_;
};

}  // namespace minimt
