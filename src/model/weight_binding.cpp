#include "minimt/model/weight_binding.h"

#include <set>

#include "minimt/base/error.h"
#include "minimt/model/untrusted_json.h"

namespace minimt {
namespace {

// Hands out tensors by name, checking shapes and remembering which names were used so that
// leftovers can be reported as unknown.
class WeightBinder {
 public:
  WeightBinder(const TensorStore& store, const std::string& file) : store_(store), file_(file) {}

  const float* tensor(const std::string& name, const Shape& shape) {
    const TensorView* view = store_.find(name);
    if (!view) throw ModelError(file_, "tensor '" + name + "' is missing");
    if (view->shape != shape)
      throw ModelError(file_, "tensor '" + name + "' has shape " + shape_to_string(view->shape) +
                                  ", expected " + shape_to_string(shape));
    used_.insert(name);
    parameters_ += element_count(shape);
    return view->data;
  }

  const float* optional(const std::string& name, const Shape& shape) {
    return store_.find(name) ? tensor(name, shape) : nullptr;
  }

  Linear linear(const std::string& prefix, int out, int in) {
    return Linear{tensor(prefix + ".weight", {out, in}), tensor(prefix + ".bias", {out}), out, in};
  }

  LayerNormWeights layer_norm(const std::string& prefix, int dim) {
    return LayerNormWeights{tensor(prefix + ".weight", {dim}), tensor(prefix + ".bias", {dim})};
  }

  AttentionWeights attention(const std::string& prefix, const ModelConfig& c) {
    int width = c.attention_width();
    return AttentionWeights{linear(prefix + ".q_proj", width, c.d_model),
                            linear(prefix + ".k_proj", width, c.d_model),
                            linear(prefix + ".v_proj", width, c.d_model),
                            linear(prefix + ".out_proj", c.d_model, width)};
  }

  void reject_unknown() const {
    for (const auto& [name, view] : store_.all())
      if (!used_.count(name))
        throw ModelError(
            file_, "tensor '" + printable(name) + "' is not part of format v1 for this config");
  }

  long long parameters() const { return parameters_; }

 private:
  const TensorStore& store_;
  const std::string& file_;
  std::set<std::string> used_;
  long long parameters_ = 0;
};

}  // namespace

ModelWeights bind_weights(const ModelConfig& c, const TensorStore& store, const std::string& file) {
  WeightBinder bind(store, file);
  ModelWeights w;
  const int d = c.d_model;
  w.source_embeddings = bind.tensor("encoder.embed_tokens.weight", {c.source_vocab_size, d});
  w.target_embeddings = bind.tensor("decoder.embed_tokens.weight", {c.target_vocab_size, d});
  if (c.positions == Positions::kLearned) {
    w.source_positions = bind.tensor("encoder.embed_positions.weight", {c.max_positions, d});
    w.target_positions = bind.tensor("decoder.embed_positions.weight", {c.max_positions, d});
  }
  // The parts every layer has, encoder or decoder: self-attention, feed-forward, their norms.
  auto bind_common = [&](auto& layer, const std::string& p) {
    layer.self_attn = bind.attention(p + ".self_attn", c);
    layer.self_attn_norm = bind.layer_norm(p + ".self_attn_layer_norm", d);
    layer.fc1 = bind.linear(p + ".fc1", c.d_ff, d);
    layer.fc2 = bind.linear(p + ".fc2", d, c.d_ff);
    layer.final_norm = bind.layer_norm(p + ".final_layer_norm", d);
  };
  for (int i = 0; i < c.encoder_layers; ++i) {
    EncoderLayerWeights layer;
    bind_common(layer, "encoder.layers." + std::to_string(i));
    w.encoder_layers.push_back(layer);
  }
  for (int i = 0; i < c.decoder_layers; ++i) {
    std::string p = "decoder.layers." + std::to_string(i);
    DecoderLayerWeights layer;
    bind_common(layer, p);
    layer.cross_attn = bind.attention(p + ".encoder_attn", c);
    layer.cross_attn_norm = bind.layer_norm(p + ".encoder_attn_layer_norm", d);
    w.decoder_layers.push_back(layer);
  }
  if (c.norm_position == NormPosition::kPre) {
    w.encoder_final_norm = bind.layer_norm("encoder.layer_norm", d);
    w.decoder_final_norm = bind.layer_norm("decoder.layer_norm", d);
  }
  w.output.weight =
      c.tie_output ? w.target_embeddings : bind.tensor("lm_head.weight", {c.target_vocab_size, d});
  w.output.bias = bind.optional("final_logits_bias", {c.target_vocab_size});
  w.output.out = c.target_vocab_size;
  w.output.in = d;
  bind.reject_unknown();
  w.parameter_count = bind.parameters();
  return w;
}

}  // namespace minimt
