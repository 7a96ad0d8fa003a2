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
  }
  return "?";
}

const char* to_string(NormPosition norm) {
  return norm == NormPosition::kPost ? "post" : "pre";
}

const char* to_string(Positions positions) {
  return positions == Positions::kSinusoidal ? "sinusoidal" : "learned";
}

}  // namespace minimt
