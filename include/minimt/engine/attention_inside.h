// What attention's weights come from (RecordExtras, attention_record.h), besides the scores
// the softmax read and each head's query, key and value rows: the norms of what each head adds
// through the output projection (Kobayashi et al. 2020, "Attention is not only a weight").
// AttentionRecorder (attention_recorder.h) keeps them.
#pragma once

#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/engine/weights.h"

namespace minimt {

// norms[r][h] = || x_r^h W_O^h ||: row r of x [count, H*dk] restricted to head h's columns,
// through the columns of W_O (out, [d_model, H*dk]) that head h's outputs multiply, no bias.
// Through ops::linear (minimt's kernels), squares summed in double in increasing order.
void head_output_norms(const Linear& out, const float* x, int count, int heads, int head_dim,
                       float* norms, std::vector<float>& scratch);

}  // namespace minimt
