// Recording what attention's weights come from (RecordExtras, attention_record.h): the scores
// the softmax read, each head's query, key and value rows, and the norms of what each head adds
// through the output projection (Kobayashi et al. 2020, "Attention is not only a weight").
#pragma once

#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/engine/weights.h"

namespace minimt {

// One multi_head_attention call for one sentence and layer, as the extras read it. Rows are
// H*dk wide, head h in columns h*dk .. (h+1)*dk-1.
struct AttentionCall {
  int layer = 0;
  const float* queries = nullptr;  // [query_count, H*dk]
  int first_query = 0;             // their place in InsideRecord::queries
  int query_count = 0;
  const float* context = nullptr;  // [query_count, H*dk]: the weights times the values
  const float* scores = nullptr;   // [H][query_count][key_count]: the entries each query sees
  int key_count = 0;               // the keys the call read
  const float* keys = nullptr;     // [new_keys, H*dk]: keys not recorded yet (none: null)
  const float* values = nullptr;   // [new_keys, H*dk]
  int first_key = 0;               // their place in InsideRecord::keys
  int new_keys = 0;
  const Linear* out = nullptr;  // the output projection W_O (its bias is left out)
};

// Copies what `extras` asks of `call` into `inside`, whose entries for those queries and keys
// exist already (add_query, add_keys). scratch is reused between calls.
void record_inside(const RecordExtras& extras, const AttentionCall& call, InsideRecord& inside,
                   std::vector<float>& scratch);

// norms[r][h] = || x_r^h W_O^h ||: row r of x [count, H*dk] restricted to head h's columns,
// through the columns of W_O (out, [d_model, H*dk]) that head h's outputs multiply, no bias.
// Through ops::linear (minimt's kernels), squares summed in double in increasing order.
void head_output_norms(const Linear& out, const float* x, int count, int heads, int head_dim,
                       float* norms, std::vector<float>& scratch);

}  // namespace minimt
