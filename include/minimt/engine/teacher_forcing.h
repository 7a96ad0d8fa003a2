// Teacher forcing: a known output fed to the decoder in one pass, as in training. It scores a
// given translation (minimt score) and re-reads a hypothesis found by a search, to record the
// attention that belongs to it and the alternatives at each of its positions.
#pragma once

#include <vector>

#include "minimt/engine/decoder.h"

namespace minimt {

struct TokenProbability {
  int id = 0;
  float probability = 0.0f;
};

struct ForcedOutput {
  std::vector<float> log_probs;  // log p(output[i] | output[0..i-1], source), natural log
  std::vector<std::vector<TokenProbability>> alternatives;  // per position, most likely first
  // The logit lens, [decoder layer][position]: the most likely tokens had the model's output
  // side read that layer's output. The last layer's are the alternatives' (the same logits).
  std::vector<std::vector<std::vector<TokenProbability>>> layer_predictions;
};

// Feeds <start> output[0] .. output[m-2] to states[i] (fresh, or holding only what precedes
// the output) in one decoder pass for all of them, the causal mask inside each run; a state's
// probe is shown the m steps. Gives the log-probability of each output token and, when
// alternatives > 0, that many most likely tokens at each position (ties: lower id). With
// lens_top > 0, a state whose probe wants the decoder's layer outputs (ProbePoint::kLayerOutput)
// also gets lens_top most likely tokens per decoder layer and position. An empty output gives
// an empty result and runs nothing.
std::vector<ForcedOutput> teacher_force(Decoder& decoder, const std::vector<DecoderState*>& states,
                                        const std::vector<const std::vector<int>*>& outputs,
                                        int start_token, int alternatives, int vocab_size,
                                        int lens_top = 0);

}  // namespace minimt
