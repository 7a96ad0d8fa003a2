// Occlusion for one sentence through the engine's forward (attribution.h).
#pragma once

#include "engine/backward/gradient_pass.h"
#include "minimt/engine/attribution.h"

namespace minimt::backward {

// source [T][S] and target [T][T] (NaN for j > t) of f_t - f_t with that token as unk.
AttributionMap occlusion(const Architecture& config, const ModelWeights& weights,
                         const HeadMask* mask, const SentenceIds& ids);

}  // namespace minimt::backward
