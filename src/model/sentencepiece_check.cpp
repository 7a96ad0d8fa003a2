#include "minimt/model/sentencepiece_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "minimt/base/error.h"
#include "minimt/base/utf8.h"
#include "minimt/model/charsmap_check.h"
#include "minimt/model/protobuf_wire.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {
namespace {

using protobuf::Field;
using protobuf::MessageReader;
using protobuf::WireType;

// A field SentencePiece reads (sentencepiece_model.proto): other fields are skipped whole, as
// protobuf skips the ones it does not know (newer SentencePiece versions add some).
struct FieldSpec {
  uint32_t number;
  const char* name;
  WireType type;
  bool repeated;
};

const std::vector<FieldSpec> kModelFields = {{1, "pieces", WireType::kLength, true},
                                             {2, "trainer_spec", WireType::kLength, false},
                                             {3, "normalizer_spec", WireType::kLength, false},
                                             {4, "self_test_data", WireType::kLength, false},
                                             {5, "denormalizer_spec", WireType::kLength, false}};
const std::vector<FieldSpec> kPieceFields = {{1, "piece", WireType::kLength, false},
                                             {2, "score", WireType::kFixed32, false},
                                             {3, "type", WireType::kVarint, false}};
const std::vector<FieldSpec> kTrainerFields = {
    {3, "model_type", WireType::kVarint, false},
    {24, "treat_whitespace_as_suffix", WireType::kVarint, false},
    {26, "allow_whitespace_only_pieces", WireType::kVarint, false},
    {35, "byte_fallback", WireType::kVarint, false},
    {44, "unk_surface", WireType::kLength, false},
    {45, "unk_piece", WireType::kLength, false},
    {46, "bos_piece", WireType::kLength, false},
    {47, "eos_piece", WireType::kLength, false},
    {48, "pad_piece", WireType::kLength, false}};
const std::vector<FieldSpec> kNormalizerFields = {
    {1, "name", WireType::kLength, false},
    {2, "precompiled_charsmap", WireType::kLength, false},
    {3, "add_dummy_prefix", WireType::kVarint, false},
    {4, "remove_extra_whitespaces", WireType::kVarint, false},
    {5, "escape_whitespaces", WireType::kVarint, false},
    {6, "normalization_rule_tsv", WireType::kLength, false}};
const std::vector<FieldSpec> kSelfTestFields = {{1, "samples", WireType::kLength, true}};
const std::vector<FieldSpec> kSampleFields = {{1, "input", WireType::kLength, false},
                                              {2, "expected", WireType::kLength, false}};

// ModelProto.SentencePiece.Type and TrainerSpec.ModelType.
constexpr int kUnknownPiece = 2, kUserDefinedPiece = 4, kLastPieceType = 6;
constexpr int kLastModelType = 4;

struct Piece {
  std::string_view text;
  int type = 1;  // NORMAL when the file does not say
};

class ModelCheck {
 public:
  ModelCheck(std::string_view bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  void run() {
    read_message(bytes_, 0, "", kModelFields, [&](const FieldSpec& spec, const Field& field) {
      const std::string where = spec.name;
      switch (spec.number) {
        case 1:
          if (pieces_.size() == kMaxSentencePiecePieces)
            fail("pieces", "are more than " + std::to_string(kMaxSentencePiecePieces));
          check_piece(field, "pieces[" + std::to_string(pieces_.size()) + "]");
          break;
        case 2:
          read_message(field.bytes, offset_of(field), where, kTrainerFields,
                       [&](const FieldSpec& s, const Field& f) { check_trainer(s, f, where); });
          break;
        case 3:
        case 5:
          check_normalizer(field, where);
          break;
        case 4:
          read_message(field.bytes, offset_of(field), where, kSelfTestFields,
                       [&](const FieldSpec&, const Field& f) { check_sample(f, where); });
          break;
      }
    });
    check_piece_set();
  }

 private:
  std::string_view bytes_;
  const std::string& file_;
  std::vector<Piece> pieces_;
  size_t self_test_bytes_ = 0;
  size_t samples_ = 0;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ModelError(file_, "is not a SentencePiece model minimt can use: " + where + " " + what);
  }

  size_t offset_of(const Field& field) const {
    return static_cast<size_t>(field.bytes.data() - bytes_.data());
  }

  // Every field of the message; those in `specs` must have their wire type and, unless
  // repeated, come once; visit(spec, field) sees each of them.
  template <typename Visit>
  void read_message(std::string_view message, size_t offset, const std::string& where,
                    const std::vector<FieldSpec>& specs, Visit visit) {
    MessageReader reader(message, offset);
    std::vector<bool> seen(specs.size(), false);
    Field field;
    while (true) {
      try {
        if (!reader.next(field)) break;
      } catch (const protobuf::WireError& e) {
        fail(where.empty() ? "the file" : where,
             "is not a whole protobuf message (" + std::string(e.what()) + ")");
      }
      auto spec = std::find_if(specs.begin(), specs.end(),
                               [&](const FieldSpec& s) { return s.number == field.number; });
      if (spec == specs.end()) continue;
      const std::string name = (where.empty() ? "" : where + ".") + spec->name;
      if (field.type != spec->type)
        fail(name, "is " + protobuf::wire_type_name(field.type) + " (at byte " +
                       std::to_string(field.offset) + "), not " +
                       protobuf::wire_type_name(spec->type));
      const size_t index = static_cast<size_t>(spec - specs.begin());
      if (seen[index] && !spec->repeated)
        fail(name, "appears twice (at byte " + std::to_string(field.offset) +
                       "); protobuf readers would merge the two");
      seen[index] = true;
      visit(*spec, field);
    }
  }

  // UTF-8 text of at most `limit` bytes without NUL: what SentencePiece turns into output text.
  void check_text(std::string_view text, const std::string& where, size_t limit) const {
    if (text.size() > limit)
      fail(where,
           "is " + std::to_string(text.size()) + " bytes long, more than " + std::to_string(limit));
    if (std::memchr(text.data(), '\0', text.size()))
      fail(where, "holds a NUL byte (SentencePiece would cut the text there)");
    if (const long long bad = find_invalid_utf8(std::string(text)); bad >= 0)
      fail(where, "is not valid UTF-8 (at its byte " + std::to_string(bad) + ")");
  }

  void check_piece(const Field& field, const std::string& where) {
    Piece piece;
    bool has_text = false;
    read_message(field.bytes, offset_of(field), where, kPieceFields,
                 [&](const FieldSpec& spec, const Field& f) {
                   const std::string name = where + "." + spec.name;
                   if (spec.number == 1) {
                     has_text = true;
                     piece.text = f.bytes;
                   } else if (spec.number == 2) {
                     float score;
                     std::memcpy(&score, f.bytes.data(), sizeof score);
                     if (!std::isfinite(score))
                       fail(name, "is " + std::string(std::isnan(score) ? "NaN" : "infinite") +
                                      "; scores must be finite");
                   } else {
                     const auto type = static_cast<int32_t>(f.varint);
                     if (type < 1 || type > kLastPieceType)
                       fail(name, "is " + std::to_string(type) +
                                      ", not a piece type SentencePiece defines (1 to 6)");
                     piece.type = type;
                   }
                 });
    if (!has_text || piece.text.empty()) fail(where, "has no text (a piece must not be empty)");
    check_text(piece.text, where + ".piece", kMaxSentencePiecePieceBytes);
    pieces_.push_back(piece);
  }

  void check_trainer(const FieldSpec& spec, const Field& field, const std::string& where) {
    const std::string name = where + "." + spec.name;
    if (spec.number == 3) {
      const auto type = static_cast<int32_t>(field.varint);
      if (type < 1 || type > kLastModelType)
        fail(name, "is " + std::to_string(type) +
                       ", not a model type SentencePiece defines (1 unigram, 2 bpe, 3 word, "
                       "4 char)");
    } else if (spec.type == WireType::kLength) {
      check_text(field.bytes, name, kMaxSentencePiecePieceBytes);
    }
  }

  void check_normalizer(const Field& field, const std::string& where) {
    read_message(field.bytes, offset_of(field), where, kNormalizerFields,
                 [&](const FieldSpec& spec, const Field& f) {
                   if (spec.number != 2) return;
                   const std::string name = where + "." + spec.name;
                   if (f.bytes.size() > kMaxCharsmapBytes)
                     fail(name, "is " + std::to_string(f.bytes.size()) + " bytes, more than the " +
                                    std::to_string(kMaxCharsmapBytes) +
                                    " minimt reads (SentencePiece's own are under 300,000)");
                   if (std::string problem = charsmap_problem(f.bytes); !problem.empty())
                     fail(name + ":", problem);
                 });
  }

  // SentencePiece encodes each self-test input while it loads: their size bounds that work.
  void check_sample(const Field& field, const std::string& where) {
    const std::string name = where + ".samples[" + std::to_string(samples_++) + "]";
    read_message(field.bytes, offset_of(field), name, kSampleFields,
                 [&](const FieldSpec& spec, const Field& f) {
                   if (spec.number == 1) self_test_bytes_ += f.bytes.size();
                 });
    if (self_test_bytes_ > kMaxSelfTestBytes)
      fail(where, "holds more than " + std::to_string(kMaxSelfTestBytes) +
                      " bytes of sentences to encode while loading");
  }

  // What the pieces say together: one unknown piece, no text twice, and no chain of more
  // user-defined pieces, each a prefix of the next, than SentencePiece's matcher keeps.
  void check_piece_set() const {
    if (pieces_.empty()) fail("the file", "has no pieces");
    int unknown = -1;
    std::unordered_map<std::string_view, size_t> first;
    std::vector<std::string_view> user_defined;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      const Piece& piece = pieces_[i];
      if (piece.type == kUnknownPiece) {
        if (unknown >= 0)
          fail("pieces[" + std::to_string(i) + "]",
               "is a second unknown piece (the first is pieces[" + std::to_string(unknown) + "])");
        unknown = static_cast<int>(i);
      }
      if (piece.type == kUserDefinedPiece) user_defined.push_back(piece.text);
      auto [it, added] = first.emplace(piece.text, i);
      if (!added)
        fail("pieces[" + std::to_string(i) + "]", "is '" + printable(std::string(piece.text)) +
                                                      "' again (as pieces[" +
                                                      std::to_string(it->second) + "])");
    }
    if (unknown < 0) fail("the file", "has no unknown piece (type 2)");
    std::sort(user_defined.begin(), user_defined.end());
    std::vector<std::string_view> chain;  // the pieces that prefix the current one, and it
    for (std::string_view text : user_defined) {
      while (!chain.empty() && text.substr(0, chain.back().size()) != chain.back())
        chain.pop_back();
      chain.push_back(text);
      if (chain.size() > kMaxNestedUserPieces)
        fail("pieces", "hold " + std::to_string(chain.size()) +
                           " user-defined pieces that each begin the next (up to '" +
                           printable(std::string(text)) + "'); SentencePiece keeps " +
                           std::to_string(kMaxNestedUserPieces));
    }
  }
};

}  // namespace

void check_sentencepiece_model(std::string_view bytes, const std::string& file) {
  ModelCheck(bytes, file).run();
}

}  // namespace minimt
