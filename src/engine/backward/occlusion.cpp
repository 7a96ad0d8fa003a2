// Occlusion (attribution.h): f_t - f_t with one token replaced by unk, every occluded variant of
// the sentence in one batch through the engine's own encoder and decoder (the model's compute
// type, its kernels), so that f_t is the token log-probability minimt reports.
#include "engine/backward/occlusion.h"

#include <limits>

#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {

AttributionMap occlusion(const Architecture& c, const ModelWeights& weights, const HeadMask* mask,
                         const SentenceIds& ids) {
  const std::vector<int>& source = *ids.source;
  const std::vector<int>& input = *ids.decoder_input;
  const std::vector<int>& output = *ids.output;
  const int S = static_cast<int>(source.size()), T = static_cast<int>(output.size());
  const int unk = c.special.unk, vocab = c.target_vocab_size;
  Encoder encoder(c, weights);
  Decoder decoder(c, weights);
  encoder.set_head_mask(mask);
  decoder.set_head_mask(mask);
  // Sources: the sentence, then source token i as unk for each i: S + 1 of them.
  std::vector<std::vector<int>> sources(1, source);
  for (int i = 0; i < S; ++i) {
    sources.push_back(source);
    sources.back()[i] = unk;
  }
  std::vector<DecoderState> states = decoder.start(encoder.forward(sources));
  // Then T more states of the sentence's source, for decoder input j as unk.
  states.resize(S + 1 + T);
  for (int j = 0; j < T; ++j) states[S + 1 + j].copy_from(states[0]);
  std::vector<std::vector<int>> runs(S + 1, input);
  std::vector<DecoderState*> pointers;
  for (int j = 0; j < T; ++j) {
    runs.push_back(input);
    runs.back()[j] = unk;
  }
  for (DecoderState& state : states) pointers.push_back(&state);
  const std::vector<float>& logits = decoder.run(runs, pointers);  // [(S+1+T) * T, vocab]
  // log p of each run's outputs, as teacher_force computes them: [S+1+T][T]
  std::vector<float> f(runs.size() * T);
  for (size_t r = 0; r < runs.size(); ++r)
    for (int t = 0; t < T; ++t) {
      const float* row = logits.data() + (r * T + t) * static_cast<size_t>(vocab);
      f[r * T + t] = row[output[t]] - ops::log_sum_exp(row, vocab);
    }
  AttributionMap map;
  map.present = true;
  map.source.resize(static_cast<size_t>(T) * S);
  map.target.assign(static_cast<size_t>(T) * T, std::numeric_limits<float>::quiet_NaN());
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < S; ++i) map.source[t * S + i] = f[t] - f[(1 + i) * T + t];
    for (int j = 0; j <= t; ++j) map.target[t * T + j] = f[t] - f[(S + 1 + j) * T + t];
  }
  return map;
}

}  // namespace minimt::backward
