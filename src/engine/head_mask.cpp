#include "minimt/engine/head_mask.h"

#include <algorithm>

#include "minimt/base/error.h"

namespace minimt {

const char* kind_name(AttentionKind kind) {
  return enum_name(kAttentionKindNames, kind);
}

HeadMask::HeadMask(int encoder_layers, int decoder_layers, int heads)
    : encoder_layers_(encoder_layers),
      decoder_layers_(decoder_layers),
      heads_(heads),
      encoder_(static_cast<size_t>(encoder_layers) * heads, 0),
      decoder_(static_cast<size_t>(decoder_layers) * heads, 0),
      cross_(static_cast<size_t>(decoder_layers) * heads, 0) {}

int HeadMask::layers(AttentionKind kind) const {
  return kind == AttentionKind::kEncoder ? encoder_layers_ : decoder_layers_;
}

const std::vector<char>& HeadMask::flags(AttentionKind kind) const {
  return kind == AttentionKind::kEncoder   ? encoder_
         : kind == AttentionKind::kDecoder ? decoder_
                                           : cross_;
}

void HeadMask::mask(AttentionKind kind, int layer, int head) {
  if (layer < 0 || layer >= layers(kind) || head < 0 || head >= heads_)
    throw Error(std::string("head mask: ") + kind_name(kind) + " layer " + std::to_string(layer) +
                " head " + std::to_string(head) + " is not in the model (" +
                std::to_string(layers(kind)) + " layers of " + std::to_string(heads_) + " heads)");
  std::vector<char>& all = kind == AttentionKind::kEncoder   ? encoder_
                           : kind == AttentionKind::kDecoder ? decoder_
                                                             : cross_;
  char& flag = all[static_cast<size_t>(layer) * heads_ + head];
  if (!flag) ++count_;
  flag = 1;
}

bool HeadMask::masked(AttentionKind kind, int layer, int head) const {
  const std::vector<char>& f = flags(kind);
  const size_t at = static_cast<size_t>(layer) * heads_ + head;
  return at < f.size() && f[at];
}

const char* HeadMask::layer(AttentionKind kind, int layer) const {
  if (count_ == 0 || layer < 0 || layer >= layers(kind)) return nullptr;
  const char* first = flags(kind).data() + static_cast<size_t>(layer) * heads_;
  return std::any_of(first, first + heads_, [](char f) { return f != 0; }) ? first : nullptr;
}

std::string HeadMask::to_string() const {
  std::string text;
  for (AttentionKind kind :
       {AttentionKind::kEncoder, AttentionKind::kDecoder, AttentionKind::kCross})
    for (int l = 0; l < layers(kind); ++l)
      for (int h = 0; h < heads_; ++h)
        if (masked(kind, l, h))
          text += (text.empty() ? "" : ",") + std::string(kind_name(kind)) + ":" +
                  std::to_string(l) + ":" + std::to_string(h);
  return text;
}

}  // namespace minimt
