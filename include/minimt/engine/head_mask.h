// Heads switched off, as Hugging Face's head_mask with value 0: a masked head's attention
// weights are multiplied by 0, so its slice of the concatenated context is 0 before the output
// projection mixes the heads. Used to measure what a head contributes (minimt heads).
#pragma once

#include <string>
#include <vector>

#include "minimt/base/enum_names.h"

namespace minimt {

enum class AttentionKind { kEncoder, kDecoder, kCross };

class HeadMask {
 public:
  HeadMask() = default;  // nothing masked
  HeadMask(int encoder_layers, int decoder_layers, int heads);

  void mask(AttentionKind kind, int layer, int head);  // throws Error outside the model
  bool masked(AttentionKind kind, int layer, int head) const;
  // The flags of one layer's heads (1: masked), or nullptr when none of them is masked.
  const char* layer(AttentionKind kind, int layer) const;
  bool empty() const { return count_ == 0; }
  int count() const { return count_; }
  // "encoder:0:1,cross:2:3": the masked heads in order of kind, layer and head.
  std::string to_string() const;

 private:
  const std::vector<char>& flags(AttentionKind kind) const;
  int layers(AttentionKind kind) const;

  int encoder_layers_ = 0, decoder_layers_ = 0, heads_ = 0, count_ = 0;
  std::vector<char> encoder_, decoder_, cross_;  // [layers][heads]
};

inline constexpr EnumName<AttentionKind> kAttentionKindNames[] = {
    {"encoder", AttentionKind::kEncoder},
    {"decoder", AttentionKind::kDecoder},
    {"cross", AttentionKind::kCross}};
const char* kind_name(AttentionKind kind);  // "encoder", "decoder", "cross"

}  // namespace minimt
