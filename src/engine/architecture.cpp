#include "minimt/engine/architecture.h"

namespace minimt {

const char* to_string(Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kSilu:
      return "silu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
  }
  return "?";
}

const char* to_string(NormPosition norm) {
  return norm == NormPosition::kPost ? "post" : "pre";
}

const char* to_string(Positions positions) {
  switch (positions) {
    case Positions::kSinusoidal:
      return "sinusoidal";
    case Positions::kLearned:
      return "learned";
    case Positions::kSinusoidalSplit:
      return "sinusoidal_split";
    case Positions::kNone:
      return "none";
  }
  return "?";
}

const char* to_string(NormKind norm) {
  return norm == NormKind::kLayerNorm ? "layer_norm" : "rms_norm";
}

const char* to_string(FeedForwardKind kind) {
  return kind == FeedForwardKind::kStandard ? "standard" : "gated";
}

}  // namespace minimt
