#include "minimt/app/analysis/rollout.h"

#include <string>

#include "minimt/base/error.h"

namespace minimt {

RolloutMatrix normalize_rows(RolloutMatrix m) {
  for (int i = 0; i < m.rows; ++i) {
    double sum = 0;
    for (int j = 0; j < m.cols; ++j) sum += m.at(i, j);
    if (sum > 0)
      for (int j = 0; j < m.cols; ++j) m.at(i, j) /= sum;
  }
  return m;
}

RolloutMatrix multiply(const RolloutMatrix& left, const RolloutMatrix& right) {
  if (left.cols != right.rows)
    throw Error("rollout: cannot multiply a " + std::to_string(left.rows) + "x" +
                std::to_string(left.cols) + " matrix by a " + std::to_string(right.rows) + "x" +
                std::to_string(right.cols) + " one");
  RolloutMatrix out(left.rows, right.cols);
  for (int i = 0; i < left.rows; ++i)
    for (int k = 0; k < left.cols; ++k) {
      const double a = left.at(i, k);
      if (a == 0) continue;
      for (int j = 0; j < right.cols; ++j) out.at(i, j) += a * right.at(k, j);
    }
  return out;
}

RolloutMatrix attention_rollout(const std::vector<RolloutMatrix>& layers, int size) {
  RolloutMatrix rollout(size, size);
  for (int i = 0; i < size; ++i) rollout.at(i, i) = 1;
  for (size_t l = 0; l < layers.size(); ++l) {
    const RolloutMatrix& a = layers[l];
    if (a.rows != size || a.cols != size)
      throw Error("rollout: layer " + std::to_string(l) + " is " + std::to_string(a.rows) + "x" +
                  std::to_string(a.cols) + ", not " + std::to_string(size) + "x" +
                  std::to_string(size));
    // The head average's rows sum to 1 unless heads are masked: a masked head records zeros
    // and passes nothing on, so the average is over the heads that do (a layer with every
    // head masked passes only the residual).
    const RolloutMatrix attention = normalize_rows(a);
    RolloutMatrix step(size, size);
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j)
        step.at(i, j) =
            (1 - kRolloutResidual) * attention.at(i, j) + (i == j ? kRolloutResidual : 0.0);
    // The layer reads the previous layer's positions, which mix the sources by `rollout`.
    rollout = multiply(normalize_rows(std::move(step)), rollout);
  }
  return rollout;
}

RolloutMatrix cross_rollout(const RolloutMatrix& cross, const RolloutMatrix& encoder_rollout) {
  return multiply(normalize_rows(cross), encoder_rollout);
}

RolloutMatrix encoder_head_average(const AttentionRecord& r, int layer) {
  const int s = r.source_length;
  RolloutMatrix m(s, s);
  for (int h = 0; h < r.heads; ++h)
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < s; ++j) m.at(i, j) += r.encoder(layer, h, i, j) / r.heads;
  return m;
}

RolloutMatrix cross_head_average(const AttentionRecord& r, int layer) {
  const int t = r.steps(), s = r.source_length;
  RolloutMatrix m(t, s);
  for (int h = 0; h < r.heads; ++h)
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < s; ++j) m.at(i, j) += r.cross(layer, h, i, j) / r.heads;
  return m;
}

SentenceRollout sentence_rollout(const AttentionRecord& r) {
  std::vector<RolloutMatrix> layers;
  for (int l = 0; l < r.encoder_layers && r.source_length > 0; ++l)
    layers.push_back(encoder_head_average(r, l));
  SentenceRollout out;
  out.encoder = attention_rollout(layers, r.source_length);
  if (r.decoder_layers > 0 && r.steps() > 0)
    out.cross = cross_rollout(cross_head_average(r, r.decoder_layers - 1), out.encoder);
  else
    out.cross = RolloutMatrix(r.steps(), r.source_length);
  return out;
}

}  // namespace minimt
