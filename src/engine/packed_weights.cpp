#include "minimt/engine/packed_weights.h"

#include "minimt/base/error.h"

namespace minimt {

size_t PackedWeights::bytes() const {
  size_t total = 0;
  for (const auto& matrix : matrices) total += matrix.bytes();
  return total;
}

std::vector<Linear*> model_linears(ModelWeights& weights) {
  std::vector<Linear*> layers;
  // fc1_linear exists (out > 0) only in a gated feed-forward (format v2).
  for (auto& layer : weights.encoder_layers)
    for (Linear* linear : {&layer.self_attn.q, &layer.self_attn.k, &layer.self_attn.v,
                           &layer.self_attn.out, &layer.fc1, &layer.fc1_linear, &layer.fc2})
      if (linear->out > 0) layers.push_back(linear);
  for (auto& layer : weights.decoder_layers)
    for (Linear* linear :
         {&layer.self_attn.q, &layer.self_attn.k, &layer.self_attn.v, &layer.self_attn.out,
          &layer.cross_attn.q, &layer.cross_attn.k, &layer.cross_attn.v, &layer.cross_attn.out,
          &layer.fc1, &layer.fc1_linear, &layer.fc2})
      if (linear->out > 0) layers.push_back(linear);
  layers.push_back(&weights.output);
  return layers;
}

PackedWeights pack_linear_layers(ModelWeights& weights, LinearKernel kernel,
                                 const WeightSources& sources) {
  PackedWeights packed;
  if (kernel == LinearKernel::kOpenblas) return packed;
  packed.layers = model_linears(weights);

  size_t floats = 0;
  for (const Linear* layer : packed.layers)
    floats += PackedMatrix::floats_needed(layer->out, layer->in);
  packed.arena = std::make_unique<PackedArena>(floats);
  float* next = packed.arena->data();
  for (Linear* layer : packed.layers) {
    auto source = sources.find(layer);
    if (source != sources.end())
      packed.matrices.emplace_back(source->second, layer->out, layer->in, next, kernel);
    else if (layer->weight)
      packed.matrices.emplace_back(layer->weight, layer->out, layer->in, next, kernel);
    else
      throw Error("a Linear layer has neither a float32 weight nor a source to pack it from");
    next += PackedMatrix::floats_needed(layer->out, layer->in);
    layer->packed = &packed.matrices.back();
  }
  return packed;
}

}  // namespace minimt
