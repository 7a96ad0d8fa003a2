// AttentionRecorder: the probe (probe.h) that fills one sentence's AttentionRecord: the weights
// it keeps, and the extras it asks for (RecordExtras: scores, vectors, norms, layer states).
#pragma once

#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/attention_record.h"
#include "minimt/engine/probe.h"
#include "minimt/engine/weights.h"

namespace minimt {

class AttentionRecorder : public Probe {
 public:
  // record is filled as the passes run; weights (for the norms' output projections) and config
  // are the model's. None is owned.
  AttentionRecorder(AttentionRecord& record, const Architecture& config,
                    const ModelWeights& weights)
      : record_(record), config_(config), weights_(weights) {}

  bool wants(ProbePoint point, AttentionKind kind, int layer) const override;
  void see(const ProbeView& view) override;

 private:
  void open(const ProbeView& view);              // kInput: room for the new positions
  void keep_weights(const ProbeView& view);      // kWeights
  void keep_queries(const ProbeView& view);      // kScores, kQueries, kHeadOutputs
  void keep_keys(const ProbeView& view);         // kKeys, kValues
  void keep_layer_state(const ProbeView& view);  // kLayerOutput
  InsideRecord& inside(AttentionKind kind);
  const Linear& output_projection(AttentionKind kind, int layer) const;  // W_O

  AttentionRecord& record_;
  const Architecture& config_;
  const ModelWeights& weights_;
  std::vector<float> norms_, scratch_;
};

}  // namespace minimt
