// T5's learned relative-position bias (format v2 key relative_attention): the bucket of a
// distance, and the per-head bias table the attention reads (ScoreOptions in attention.h).
#pragma once

#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/attention.h"

namespace minimt {

// The bucket of relative = key position - query position, as transformers'
// T5Attention._relative_position_bucket computes it (float32 logarithms, truncated):
// bidirectional (encoder): half the buckets for keys after the query; then distances below
// half of the (remaining) buckets get one bucket each, longer ones log-spaced buckets up to
// max_distance, and every longer distance the last one. Unidirectional (decoder): keys after
// the query share bucket 0 (the causal mask hides them anyway).
int relative_position_bucket(int relative, bool bidirectional, int buckets, int max_distance);

// Fills `table` with [H][2 * longest - 1] biases, distance 0 at column longest - 1, from
// weight [buckets, H], and returns the ScoreOptions that read it (scaled as the config says).
ScoreOptions relative_bias_table(const Architecture& config, const float* weight,
                                 bool bidirectional, int longest, std::vector<float>& table);

}  // namespace minimt
