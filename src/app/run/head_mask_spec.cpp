#include "minimt/app/run/head_mask_spec.h"

#include <sstream>
#include <vector>

#include "minimt/base/error.h"

namespace minimt {
namespace {

// The indices an item's LAYER or HEAD field names: all for *, else one (negative from the end).
std::vector<int> indices(const std::string& field, int count, const char* what,
                         const std::string& item) {
  std::vector<int> result;
  if (field == "*") {
    for (int i = 0; i < count; ++i) result.push_back(i);
    return result;
  }
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (field.empty() || used != field.size())
    throw Error("'" + item + "': the " + what + " '" + field + "' is not a number or *");
  if (value < -count || value >= count)
    throw Error("'" + item + "': there is no " + what + " " + field + " (" + std::to_string(count) +
                ", numbered from 0; negative counts from the end)");
  result.push_back(static_cast<int>(value < 0 ? value + count : value));
  return result;
}

}  // namespace

HeadMask parse_head_mask(const std::string& spec, const ModelConfig& c) {
  HeadMask mask(c.encoder_layers, c.decoder_layers, c.num_heads);
  std::stringstream items(spec);
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    any = true;
    const size_t first = item.find(':'), second = item.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos ||
        item.find(':', second + 1) != std::string::npos)
      throw Error("'" + item + "' is not TYPE:LAYER:HEAD (e.g. cross:-1:0 or encoder:*:2)");
    const std::string type = item.substr(0, first);
    AttentionKind kind;
    if (!enum_value(kAttentionKindNames, type, kind))
      throw Error("'" + item + "': the type '" + type + "' is not encoder, decoder or cross");
    const int layers = kind == AttentionKind::kEncoder ? c.encoder_layers : c.decoder_layers;
    for (int l : indices(item.substr(first + 1, second - first - 1), layers, "layer", item))
      for (int h : indices(item.substr(second + 1), c.num_heads, "head", item))
        mask.mask(kind, l, h);
  }
  if (!any) throw Error("'" + spec + "' names no head (e.g. cross:-1:0,encoder:*:2)");
  return mask;
}

}  // namespace minimt
