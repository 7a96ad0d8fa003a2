// One sentence's attention as Python values: float32 numpy arrays under the dump's keys, with
// their axes documented in docs/python.md, and the token lists that label them.
#pragma once

#include <pybind11/pybind11.h>

#include "minimt/app/record/dump_reader.h"

namespace minimt::python {

// {"encoder_self_attention": [layer, head, S, S], "decoder_self_attention": [layer, head, T, T],
//  "cross_attention": [layer, head, T, S], each extra under its key ("cross_scores": the same
//  shape, NaN under the causal mask; "cross_queries": [layer, head, T, d_k]; "cross_head_norms":
//  [layer, head, T]), "encoder_rollout": [S, S], "cross_rollout": [T, S]}: what the sentence has.
pybind11::dict sentence_arrays(const DumpSentence& sentence);

// The rest: tokens, the layers and heads each key holds, masked heads, the logit lens.
pybind11::dict sentence_labels(const DumpSentence& sentence);

}  // namespace minimt::python
