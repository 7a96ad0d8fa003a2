#include "minimt/engine/probed_attention.h"

#include <utility>

#include "minimt/engine/layers.h"

namespace minimt {

void ProbedAttention::run(Probe* probe, const AttentionSite& site, const AttentionInputs& in,
                          const ScoreOptions& options, float* context) {
  const char* masked = head_mask_ ? head_mask_->layer(site.kind, site.layer) : nullptr;
  AttentionOutputs out{context};
  if (!probe) {
    multi_head_attention(in, options, masked, out, scratch_);
    return;
  }
  const size_t block = static_cast<size_t>(in.heads) * in.tq * in.tk;  // [H][tq][tk]
  if (probe->wants(ProbePoint::kWeights, site.kind, site.layer))
    out.weights = reserve(weights_, block);
  if (probe->wants(ProbePoint::kScores, site.kind, site.layer))
    out.scores = reserve(scores_, block);
  multi_head_attention(in, options, masked, out, scratch_);

  const size_t width = static_cast<size_t>(in.heads) * in.head_dim;
  const int first_key = in.tk - site.new_keys;  // the new keys: the last rows of k and v
  ProbeView view{
      ProbePoint::kQueries, site.kind, site.layer, site.first, in.tq, in.tk, in.causal, in.q};
  show(probe, view);  // [tq, H*dk]
  if (site.new_keys > 0) {
    ProbeView keys = view;  // [new_keys, H*dk] each
    keys.first = first_key;
    keys.rows = site.new_keys;
    keys.point = ProbePoint::kKeys;
    keys.data = in.k + first_key * width;
    show(probe, keys);
    keys.point = ProbePoint::kValues;
    keys.data = in.v + first_key * width;
    show(probe, keys);
  }
  // What the call made: the scores and weights [H][tq][tk] (when wanted), the context [tq, H*dk].
  const std::pair<ProbePoint, const float*> made[] = {{ProbePoint::kScores, out.scores},
                                                      {ProbePoint::kWeights, out.weights},
                                                      {ProbePoint::kHeadOutputs, out.context}};
  for (const auto& [point, data] : made) {
    if (!data) continue;
    view.point = point;
    view.data = data;
    show(probe, view);
  }
}

}  // namespace minimt
