// "Negative numbers count from the end", as --dump-layers and --align-layer take layers: -1 is
// the last of `count`, -count the first.
#pragma once

namespace minimt {

// The position `index` names among `count` things; may be outside [0, count): callers check.
constexpr int index_from_end(int index, int count) {
  return index < 0 ? count + index : index;
}

}  // namespace minimt
