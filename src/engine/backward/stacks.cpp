#include "engine/backward/stacks.h"

#include <algorithm>

#include "minimt/engine/ops.h"
#include "minimt/engine/relative_position.h"

namespace minimt::backward {
namespace {

// One residual sub-layer over x [rows, d], as layers.h's residual():
//   post-norm: x = N(x + f(x));  pre-norm: x = x + f(N(x)).
template <typename Sublayer>
void residual_forward(const Architecture& c, const LayerNormWeights& w, float* x, int64_t rows,
                      NormTape& norm, Scratch& z, Sublayer&& sublayer) {
  const size_t count = static_cast<size_t>(rows) * c.d_model;
  float* out = room(z.residual, count);
  if (c.norm_position == NormPosition::kPre) {
    float* normed = room(z.normed, count);
    std::copy_n(x, count, normed);
    norm_forward(c, w, normed, rows, norm);
    sublayer(static_cast<const float*>(normed), out);
    ops::add_in_place(x, out, static_cast<int64_t>(count));
  } else {
    sublayer(static_cast<const float*>(x), out);
    ops::add_in_place(x, out, static_cast<int64_t>(count));
    norm_forward(c, w, x, rows, norm);
  }
}

// Its backward over dx [V*B*N, d], in place. sublayer(dout, din) writes din from dout.
//   pre:  dx += N'^T f'^T dx;   post: ds = N'^T dx, dx = ds + f'^T ds.
template <typename Sublayer>
void residual_backward(const Architecture& c, const LayerNormWeights& w, const NormTape& norm,
                       const GradShape& shape, float* dx, Scratch& z, Sublayer&& sublayer) {
  const size_t count = static_cast<size_t>(shape.gradient_rows()) * c.d_model;
  float* inner = room(z.residual, count);
  if (c.norm_position == NormPosition::kPre) {
    sublayer(static_cast<const float*>(dx), inner);
    norm_backward(c, w, norm, shape, inner);
  } else {
    norm_backward(c, w, norm, shape, dx);
    sublayer(static_cast<const float*>(dx), inner);
  }
  ops::add_in_place(dx, inner, static_cast<int64_t>(count));
}

const char* masked(const HeadMask* mask, AttentionKind kind, int layer) {
  return mask ? mask->layer(kind, layer) : nullptr;
}

}  // namespace

void encoder_forward(const DenseModel& m, const HeadMask* mask, int variants, int length, float* x,
                     StackTape& tape, Scratch& z) {
  const Architecture& c = m.config();
  const int64_t rows = static_cast<int64_t>(variants) * length;
  ScoreOptions scores{c.scale_attention_scores};
  if (m.weights().encoder_relative_bias)
    scores =
        relative_bias_table(c, m.weights().encoder_relative_bias, true, length, tape.bias_table);
  tape.layers.resize(m.encoder().size());
  for (size_t l = 0; l < m.encoder().size(); ++l) {
    const DenseLayer& layer = m.encoder()[l];
    LayerTape& t = tape.layers[l];
    t.self_attn.tq = t.self_attn.tk = length;
    t.self_attn.self = true;
    t.self_attn.options = scores;
    t.self_attn.masked = masked(mask, AttentionKind::kEncoder, static_cast<int>(l));
    residual_forward(
        c, layer.self_attn_norm, x, rows, t.self_norm, z, [&](const float* in, float* out) {
          attention_forward(c, layer.self_attn, in, in, variants, false, t.self_attn, out, z);
        });
    residual_forward(c, layer.final_norm, x, rows, t.ff_norm, z, [&](const float* in, float* out) {
      feed_forward_forward(c, layer, in, rows, t.ff, out);
    });
  }
  if (c.final_norms) norm_forward(c, m.weights().encoder_final_norm, x, rows, tape.final_norm);
}

void encoder_backward(const DenseModel& m, const StackTape& tape, const GradShape& shape, float* dx,
                      Scratch& z) {
  const Architecture& c = m.config();
  if (c.final_norms) norm_backward(c, m.weights().encoder_final_norm, tape.final_norm, shape, dx);
  for (size_t l = m.encoder().size(); l-- > 0;) {
    const DenseLayer& layer = m.encoder()[l];
    const LayerTape& t = tape.layers[l];
    residual_backward(c, layer.final_norm, t.ff_norm, shape, dx, z,
                      [&](const float* dout, float* din) {
                        feed_forward_backward(c, layer, t.ff, shape, dout, din, z);
                      });
    residual_backward(
        c, layer.self_attn_norm, t.self_norm, shape, dx, z, [&](const float* dout, float* din) {
          attention_backward(c, layer.self_attn, t.self_attn, shape, dout, din, din, z);
        });
  }
}

void decoder_forward(const DenseModel& m, const HeadMask* mask, int variants, int length,
                     const float* memory, int source_length, float* y, StackTape& tape,
                     Scratch& z) {
  const Architecture& c = m.config();
  const int64_t rows = static_cast<int64_t>(variants) * length;
  ScoreOptions scores{c.scale_attention_scores};
  if (m.weights().decoder_relative_bias)
    scores =
        relative_bias_table(c, m.weights().decoder_relative_bias, false, length, tape.bias_table);
  tape.layers.resize(m.decoder().size());
  for (size_t l = 0; l < m.decoder().size(); ++l) {
    const DenseLayer& layer = m.decoder()[l];
    const int at = static_cast<int>(l);
    LayerTape& t = tape.layers[l];
    t.self_attn.tq = t.self_attn.tk = length;
    t.self_attn.self = true;
    t.self_attn.options = scores;
    t.self_attn.masked = masked(mask, AttentionKind::kDecoder, at);
    t.cross_attn.tq = length;
    t.cross_attn.tk = source_length;
    t.cross_attn.options = ScoreOptions{c.scale_attention_scores};  // no bias across
    t.cross_attn.masked = masked(mask, AttentionKind::kCross, at);
    residual_forward(
        c, layer.self_attn_norm, y, rows, t.self_norm, z, [&](const float* in, float* out) {
          attention_forward(c, layer.self_attn, in, in, variants, true, t.self_attn, out, z);
        });
    residual_forward(
        c, layer.cross_attn_norm, y, rows, t.cross_norm, z, [&](const float* in, float* out) {
          attention_forward(c, layer.cross_attn, in, memory, variants, false, t.cross_attn, out, z);
        });
    residual_forward(c, layer.final_norm, y, rows, t.ff_norm, z, [&](const float* in, float* out) {
      feed_forward_forward(c, layer, in, rows, t.ff, out);
    });
  }
  if (c.final_norms) norm_forward(c, m.weights().decoder_final_norm, y, rows, tape.final_norm);
}

void decoder_backward(const DenseModel& m, const StackTape& tape, const GradShape& shape, float* dy,
                      float* dmemory, Scratch& z) {
  const Architecture& c = m.config();
  if (c.final_norms) norm_backward(c, m.weights().decoder_final_norm, tape.final_norm, shape, dy);
  for (size_t l = m.decoder().size(); l-- > 0;) {
    const DenseLayer& layer = m.decoder()[l];
    const LayerTape& t = tape.layers[l];
    residual_backward(c, layer.final_norm, t.ff_norm, shape, dy, z,
                      [&](const float* dout, float* din) {
                        feed_forward_backward(c, layer, t.ff, shape, dout, din, z);
                      });
    residual_backward(
        c, layer.cross_attn_norm, t.cross_norm, shape, dy, z, [&](const float* dout, float* din) {
          attention_backward(c, layer.cross_attn, t.cross_attn, shape, dout, din, dmemory, z);
        });
    residual_backward(
        c, layer.self_attn_norm, t.self_norm, shape, dy, z, [&](const float* dout, float* din) {
          attention_backward(c, layer.self_attn, t.self_attn, shape, dout, din, din, z);
        });
  }
}

}  // namespace minimt::backward
