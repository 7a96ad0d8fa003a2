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
  WeightBinder(const TensorStore& store, const std::string& file, const BindOptions& options,
               int version)
      : store_(store), file_(file), options_(options), version_(version) {}

  // A float tensor (F32 in place; F16 and BF16 widened). I8 is only for Linear weights.
  const float* tensor(const std::string& name, const Shape& shape) {
    const TensorView* view = checked(name, shape);
    if (view->dtype == DType::kI8)
      fail(name,
           "is I8, but format v" + std::to_string(version_) +
               " stores only the weights of Linear layers (attention projections, fc1, fc2, " +
               (version_ > 1 ? "fc1_linear, " : "") + "lm_head) as I8");
    parameters_ += element_count(shape);
    return store_.find(name)->data;
  }

  const float* optional(const std::string& name, const Shape& shape) {
    return store_.stored(name) ? tensor(name, shape) : nullptr;
  }

  // PREFIX.weight [out, in]: float (F32, F16, BF16), or I8 with PREFIX.weight_scale F32 [out].
  void linear_weight(const std::string& prefix, Linear& layer, int out, int in) {
    const std::string name = prefix + ".weight";
    const TensorView* view = checked(name, {out, in});
    parameters_ += static_cast<long long>(out) * in;
    layer.out = out;
    layer.in = in;
    if (view->dtype == DType::kI8) return int8_weight(prefix, *view, layer);
    if (store_.stored(prefix + ".weight_scale"))
      fail(prefix + ".weight_scale",
           "is the scale of an I8 weight, but '" + name + "' is " + to_string(view->dtype));
    const bool from_file = options_.pack_from_file && view->dtype != DType::kF32;
    layer.weight = from_file ? nullptr : store_.find(name)->data;
  }

  // PREFIX.weight, and PREFIX.bias unless the model's norms are RMS norms.
  LayerNormWeights norm(const std::string& prefix, int dim, NormKind kind) {
    const float* weight = tensor(prefix + ".weight", {dim});
    return LayerNormWeights{
        weight, kind == NormKind::kLayerNorm ? tensor(prefix + ".bias", {dim}) : nullptr};
  }

  void reject_unknown() const {
    for (const auto& [name, view] : store_.all())
      if (!used_.count(name))
        throw ModelError(file_, "tensor '" + printable(name) + "' is not part of format v" +
                                    std::to_string(version_) + " for this config");
  }

  long long parameters() const { return parameters_; }

 private:
  const TensorStore& store_;
  const std::string& file_;
  const BindOptions& options_;
  int version_;  // the format version, for messages
  std::set<std::string> used_;
  long long parameters_ = 0;

  [[noreturn]] void fail(const std::string& name, const std::string& what) const {
    throw ModelError(file_, "tensor '" + name + "' " + what);
  }

  const TensorView* checked(const std::string& name, const Shape& shape) {
    const TensorView* view = store_.stored(name);
    if (!view) fail(name, "is missing");
    if (view->shape != shape)
      fail(name,
           "has shape " + shape_to_string(view->shape) + ", expected " + shape_to_string(shape));
    used_.insert(name);
    return view;
  }

  // A weight `minimt convert` quantized: q in [-127, 127] (symmetric, as quantize_rows_int8
  // writes; the int8 kernels rely on it) and one finite scale >= 0 per output row.
  void int8_weight(const std::string& prefix, const TensorView& view, Linear& layer) {
    const std::string name = prefix + ".weight", scale_name = prefix + ".weight_scale";
    const TensorView* scale = store_.stored(scale_name);
    if (!scale) fail(name, "is I8 but its scale '" + scale_name + "' is missing");
    if (scale->dtype != DType::kF32)
      fail(scale_name, "is " + to_string(scale->dtype) + "; the scale of an I8 weight is F32");
    checked(scale_name, {layer.out});
    const float* scales = store_.find(scale_name)->data;  // finite: the reader checked
    for (int row = 0; row < layer.out; ++row)
      if (!(scales[row] >= 0.0f))
        fail(scale_name, "holds " + std::to_string(scales[row]) + " at element " +
                             std::to_string(row) + "; scales must be >= 0");
    const auto* q = static_cast<const int8_t*>(view.raw);
    const size_t count = static_cast<size_t>(layer.out) * layer.in;
    bool low = false;  // branch-free over the whole weight (vectorized)
    for (size_t i = 0; i < count; ++i) low |= q[i] == -128;
    if (low)
      for (size_t i = 0; i < count; ++i)
        if (q[i] == -128)
          fail(name,
               "holds -128 at element " + std::to_string(i) + "; I8 weights lie in [-127, 127]");
    layer.weight_int8 = q;
    layer.weight_scale = scales;
    layer.weight = nullptr;
    if (options_.compute_type == ComputeType::kInt8 || options_.pack_from_file) return;
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i)
      values[i] = static_cast<float>(q[i]) * scales[i / static_cast<size_t>(layer.in)];
    layer.weight = store_.own(std::move(values));
  }
};

}  // namespace

void for_each_named_linear(
    const ModelConfig& c, ModelWeights& w,
    const std::function<void(const std::string& prefix, Linear& layer, int out, int in)>& fn) {
  const int d = c.d_model, width = c.attention_width();
  auto attention = [&](const std::string& p, AttentionWeights& a) {
    fn(p + ".q_proj", a.q, width, d);
    fn(p + ".k_proj", a.k, width, d);
    fn(p + ".v_proj", a.v, width, d);
    fn(p + ".out_proj", a.out, d, width);
  };
  auto feed_forward = [&](const std::string& p, Linear& fc1, Linear& fc1_linear, Linear& fc2) {
    fn(p + ".fc1", fc1, c.d_ff, d);
    if (c.feed_forward == FeedForwardKind::kGated) fn(p + ".fc1_linear", fc1_linear, c.d_ff, d);
    fn(p + ".fc2", fc2, d, c.d_ff);
  };
  for (size_t i = 0; i < w.encoder_layers.size(); ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    auto& layer = w.encoder_layers[i];
    attention(p + ".self_attn", layer.self_attn);
    feed_forward(p, layer.fc1, layer.fc1_linear, layer.fc2);
  }
  for (size_t i = 0; i < w.decoder_layers.size(); ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    auto& layer = w.decoder_layers[i];
    attention(p + ".self_attn", layer.self_attn);
    attention(p + ".encoder_attn", layer.cross_attn);
    feed_forward(p, layer.fc1, layer.fc1_linear, layer.fc2);
  }
  if (!c.tie_output) fn("lm_head", w.output, c.target_vocab_size, d);
}

ModelWeights bind_weights(const ModelConfig& c, const TensorStore& store, const std::string& file,
                          const BindOptions& options) {
  WeightBinder bind(store, file, options, c.format_version);
  ModelWeights w;
  const int d = c.d_model;
  w.source_embeddings = bind.tensor("encoder.embed_tokens.weight", {c.source_vocab_size, d});
  w.target_embeddings = bind.tensor("decoder.embed_tokens.weight", {c.target_vocab_size, d});
  if (c.positions == Positions::kLearned) {
    const int rows = c.max_positions + c.position_offset;
    w.source_positions = bind.tensor("encoder.embed_positions.weight", {rows, d});
    w.target_positions = bind.tensor("decoder.embed_positions.weight", {rows, d});
  }
  if (c.relative_attention.buckets > 0) {
    const Shape shape{c.relative_attention.buckets, c.num_heads};
    w.encoder_relative_bias = bind.tensor("encoder.relative_attention_bias.weight", shape);
    w.decoder_relative_bias = bind.tensor("decoder.relative_attention_bias.weight", shape);
  }
  if (c.embedding_norm) {
    w.encoder_embedding_norm = bind.norm("encoder.layernorm_embedding", d, c.norm);
    w.decoder_embedding_norm = bind.norm("decoder.layernorm_embedding", d, c.norm);
  }
  // The norms every layer has, encoder or decoder; the Linear layers come below.
  auto bind_norms = [&](auto& layer, const std::string& p) {
    layer.self_attn_norm = bind.norm(p + ".self_attn_layer_norm", d, c.norm);
    layer.final_norm = bind.norm(p + ".final_layer_norm", d, c.norm);
  };
  w.encoder_layers.resize(static_cast<size_t>(c.encoder_layers));
  w.decoder_layers.resize(static_cast<size_t>(c.decoder_layers));
  for (int i = 0; i < c.encoder_layers; ++i)
    bind_norms(w.encoder_layers[i], "encoder.layers." + std::to_string(i));
  for (int i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    bind_norms(w.decoder_layers[i], p);
    w.decoder_layers[i].cross_attn_norm = bind.norm(p + ".encoder_attn_layer_norm", d, c.norm);
  }
  for_each_named_linear(c, w, [&](const std::string& p, Linear& layer, int out, int in) {
    bind.linear_weight(p, layer, out, in);
    if (&layer != &w.output && c.biases) layer.bias = bind.tensor(p + ".bias", {out});
  });
  if (c.final_norms) {
    w.encoder_final_norm = bind.norm("encoder.layer_norm", d, c.norm);
    w.decoder_final_norm = bind.norm("decoder.layer_norm", d, c.norm);
  }
  if (c.tie_output) w.output.weight = w.target_embeddings;
  w.output.bias = bind.optional("final_logits_bias", {c.target_vocab_size});
  w.output.out = c.target_vocab_size;
  w.output.in = d;
  bind.reject_unknown();
  w.parameter_count = bind.parameters();
  return w;
}

WeightSources linear_weight_sources(const ModelConfig& c, ModelWeights& w,
                                    const TensorStore& store) {
  WeightSources sources;
  for_each_named_linear(c, w, [&](const std::string& p, Linear& layer, int, int) {
    const TensorView* view = store.stored(p + ".weight");
    if (!view) return;
    WeightSource source;
    source.data = view->dtype == DType::kF32 ? static_cast<const void*>(view->data) : view->raw;
    source.format = view->dtype == DType::kF16    ? WeightSource::Format::kF16
                    : view->dtype == DType::kBf16 ? WeightSource::Format::kBf16
                    : view->dtype == DType::kI8   ? WeightSource::Format::kI8
                                                  : WeightSource::Format::kF32;
    source.scale = layer.weight_scale;
    sources[&layer] = source;
  });
  return sources;
}

}  // namespace minimt
