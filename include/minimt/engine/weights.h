// Typed views of a model's weights, as the layers read them. Filled by bind_weights (the model
// floor's weight_binding.h), the only place that spells tensor names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace minimt {

class PackedMatrix;
class Int8Matrix;
class Bf16Matrix;

// y = x W^T + b, the PyTorch convention.
struct Linear {
  // [out, in]. Null when the weight is used only through a packed copy made straight from the
  // file (float32 on minimt's kernel from F16/BF16/I8, or int8 compute from an int8 file).
  const float* weight = nullptr;
  const float* bias = nullptr;  // [out], or null for none
  int out = 0, in = 0;
  // The weight as an int8 file holds it (a model written by `minimt convert`), if it does:
  // weight[o][i] ~ weight_int8[o][i] * weight_scale[o].
  const int8_t* weight_int8 = nullptr;  // [out, in]
  const float* weight_scale = nullptr;  // [out]
  // At most one of these is set; ops::linear runs it. None: OpenBLAS on `weight`.
  const PackedMatrix* packed = nullptr;  // float32, packed for minimt's kernel
  const Int8Matrix* int8 = nullptr;      // int8 compute
  const Bf16Matrix* bf16 = nullptr;      // bf16 compute
};

// A layer norm, or an RMS norm (format v2), which has no bias.
struct LayerNormWeights {
  const float* weight = nullptr;  // [dim]
  const float* bias = nullptr;    // [dim]; null for an RMS norm
};

struct AttentionWeights {
  Linear q, k, v;  // [H*dk, d_model] each; head r owns rows r*dk .. (r+1)*dk-1
  Linear out;      // [d_model, H*dk]
};

struct EncoderLayerWeights {
  AttentionWeights self_attn;
  LayerNormWeights self_attn_norm;
  Linear fc1, fc2;    // [d_ff, d_model], [d_model, d_ff]
  Linear fc1_linear;  // [d_ff, d_model], gated feed-forward only: fc2(act(fc1 x) * fc1_linear x)
  LayerNormWeights final_norm;
};

struct DecoderLayerWeights {
  AttentionWeights self_attn;  // masked
  LayerNormWeights self_attn_norm;
  AttentionWeights cross_attn;  // "encoder_attn": q from the decoder, k and v from the encoder
  LayerNormWeights cross_attn_norm;
  Linear fc1, fc2;
  Linear fc1_linear;  // gated feed-forward only
  LayerNormWeights final_norm;
};

struct ModelWeights {
  const float* source_embeddings = nullptr;  // [source_vocab_size, d_model]
  const float* target_embeddings = nullptr;  // [target_vocab_size, d_model]
  // [max_positions + position_offset, d_model]: learned positions, or the sinusoidal table when the
  // model keeps one; null means sinusoidal positions computed on the fly.
  const float* source_positions = nullptr;
  const float* target_positions = nullptr;
  std::vector<EncoderLayerWeights> encoder_layers;
  std::vector<DecoderLayerWeights> decoder_layers;
  LayerNormWeights encoder_final_norm;  // final_norms only (v1: pre-norm)
  LayerNormWeights decoder_final_norm;
  LayerNormWeights encoder_embedding_norm;  // embedding_norm only (v2)
  LayerNormWeights decoder_embedding_norm;
  // relative_attention only (v2): [buckets, num_heads], the bias each bucket adds to a head's
  // scores, in every layer of the stack.
  const float* encoder_relative_bias = nullptr;
  const float* decoder_relative_bias = nullptr;
  // Logits: weight [target_vocab_size, d_model] is the tied decoder embedding or lm_head;
  // bias is final_logits_bias or null.
  Linear output;
  long long parameter_count = 0;
};

}  // namespace minimt
