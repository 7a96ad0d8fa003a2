#include "minimt/engine/architecture.h"

namespace minimt {

const char* to_string(Activation activation) {
  return enum_name(kActivationNames, activation);
}

const char* to_string(NormPosition norm) {
  return enum_name(kNormPositionNames, norm);
}

const char* to_string(Positions positions) {
  return enum_name(kPositionsNames, positions);
}

const char* to_string(NormKind norm) {
  return enum_name(kNormKindNames, norm);
}

const char* to_string(FeedForwardKind kind) {
  return enum_name(kFeedForwardKindNames, kind);
}

}  // namespace minimt
