#include "minimt/engine/teacher_forcing.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/highest_first.h"
#include "minimt/engine/ops.h"

namespace minimt {
namespace {

std::vector<TokenProbability> most_likely(const float* row, int vocab_size, float normalizer,
                                          int count, std::vector<int>& order) {
  const int take = std::min(count, vocab_size);
  order_highest_first(row, vocab_size, take, order);
  std::vector<TokenProbability> result;
  for (int r = 0; r < take; ++r) result.push_back({order[r], std::exp(row[order[r]] - normalizer)});
  return result;
}

// The most likely `count` tokens of each of `rows` rows of logits [rows, V].
std::vector<std::vector<TokenProbability>> most_likely_rows(const float* logits, int rows,
                                                            int vocab_size, int count,
                                                            std::vector<int>& order) {
  std::vector<std::vector<TokenProbability>> out;
  for (int r = 0; r < rows; ++r) {
    const float* row = logits + static_cast<size_t>(r) * vocab_size;
    out.push_back(most_likely(row, vocab_size, ops::log_sum_exp(row, vocab_size), count, order));
  }
  return out;
}

// The probe of a state whose logit lens is asked for: keeps each decoder layer's output of the
// run, and shows the state's own probe what it wants.
class LensProbe : public Probe {
 public:
  LensProbe(Probe* inner, int d_model) : inner_(inner), d_model_(d_model) {}
  bool wants(ProbePoint point, AttentionKind kind, int layer) const override {
    return (point == ProbePoint::kLayerOutput && kind == AttentionKind::kDecoder) ||
           inner_->wants(point, kind, layer);
  }
  void see(const ProbeView& view) override {
    if (view.point == ProbePoint::kLayerOutput && view.kind == AttentionKind::kDecoder) {
      if (static_cast<int>(layers_.size()) <= view.layer) layers_.resize(view.layer + 1);
      layers_[view.layer].assign(view.data, view.data + static_cast<size_t>(view.rows) * d_model_);
    }
    show(inner_, view);
  }
  Probe* inner() const { return inner_; }
  const std::vector<std::vector<float>>& layers() const { return layers_; }  // [L][rows, d]

 private:
  Probe* inner_;
  int d_model_;
  std::vector<std::vector<float>> layers_;
};

// The logit lens of one run: every layer but the last read through the output side again; the
// last layer's output is what made `logits` [rows, V].
std::vector<std::vector<std::vector<TokenProbability>>> lens(Decoder& decoder,
                                                             const LensProbe& probe,
                                                             const float* logits, int rows,
                                                             int vocab_size, int count,
                                                             std::vector<int>& order) {
  std::vector<std::vector<std::vector<TokenProbability>>> layers;
  const auto& outputs = probe.layers();
  for (size_t l = 0; l + 1 < outputs.size(); ++l)
    layers.push_back(most_likely_rows(decoder.lens_logits(outputs[l].data(), rows).data(), rows,
                                      vocab_size, count, order));
  layers.push_back(most_likely_rows(logits, rows, vocab_size, count, order));
  return layers;
}

}  // namespace

std::vector<ForcedOutput> teacher_force(Decoder& decoder, const std::vector<DecoderState*>& states,
                                        const std::vector<const std::vector<int>*>& outputs,
                                        int start_token, int alternatives, int vocab_size,
                                        int lens_top) {
  std::vector<ForcedOutput> results(states.size());
  std::vector<std::vector<int>> runs;
  std::vector<DecoderState*> running;
  std::vector<size_t> which;  // results index of each run
  for (size_t i = 0; i < states.size(); ++i) {
    const std::vector<int>& output = *outputs[i];
    if (output.empty()) continue;
    std::vector<int> run{start_token};  // the decoder input: the output shifted right
    run.insert(run.end(), output.begin(), output.end() - 1);
    runs.push_back(std::move(run));
    running.push_back(states[i]);
    which.push_back(i);
  }
  if (runs.empty()) return results;
  // The states whose probes want the layer outputs get the logit lens, through a LensProbe.
  std::vector<std::unique_ptr<LensProbe>> lenses(running.size());
  for (size_t r = 0; r < running.size(); ++r) {
    Probe* probe = running[r]->probe;
    if (lens_top <= 0 || !probe ||
        !probe->wants(ProbePoint::kLayerOutput, AttentionKind::kDecoder, 0))
      continue;
    lenses[r] = std::make_unique<LensProbe>(probe, decoder.config().d_model);
    running[r]->probe = lenses[r].get();
  }
  const auto restore = [&] {  // the states' own probes again
    for (size_t r = 0; r < running.size(); ++r)
      if (lenses[r]) running[r]->probe = lenses[r]->inner();
  };
  const std::vector<float>* run_logits = nullptr;
  try {
    run_logits = &decoder.run(runs, running);  // [sum of lengths, V]
  } catch (...) {
    restore();
    throw;
  }
  restore();
  const std::vector<float>& logits = *run_logits;
  std::vector<int> order;
  size_t row = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    ForcedOutput& result = results[which[r]];
    const std::vector<int>& output = *outputs[which[r]];
    if (lenses[r])
      result.layer_predictions = lens(decoder, *lenses[r], logits.data() + row * vocab_size,
                                      static_cast<int>(output.size()), vocab_size, lens_top, order);
    for (size_t t = 0; t < output.size(); ++t, ++row) {
      const float* logit = logits.data() + row * vocab_size;
      const float normalizer = ops::log_sum_exp(logit, vocab_size);
      result.log_probs.push_back(logit[output[t]] - normalizer);
      if (alternatives > 0)
        result.alternatives.push_back(
            most_likely(logit, vocab_size, normalizer, alternatives, order));
    }
  }
  return results;
}

}  // namespace minimt
