// held_by (answer_bytes.h): what a batch's records and recorded attention make of an answer.
#include "app/run/answer_bytes.h"

#include <algorithm>

#include "minimt/app/run/serving_queue.h"

namespace minimt {
namespace {

// The numbers a sentence's attention record holds (what a dump or a page of it writes out).
size_t recorded_numbers(const AttentionRecord& record) {
  size_t count = record.encoder_self.size();
  for (const auto* steps : {&record.decoder_self_steps, &record.cross_steps, &record.layer_states})
    for (const std::vector<float>& step : *steps) count += step.size();
  for (const InsideRecord* inside :
       {&record.encoder_inside, &record.decoder_inside, &record.cross_inside}) {
    for (const auto& q : inside->queries)
      count += q.scores.size() + q.vector.size() + q.head_norms.size();
    for (const auto& k : inside->keys)
      count += k.key.size() + k.value.size() + k.value_norms.size();
  }
  return count;
}

}  // namespace

// What a slice's translations and records hold (ServingQueue::hold); the logit lens writes K
// tokens for each decoder layer's state.
size_t held_by(const LineBatch& slice, const RequestPlan& plan) {
  size_t bytes = 0;
  const size_t lens = static_cast<size_t>(std::max(plan.selection.logit_lens, 0));
  for (const Translation& t : slice.translations) {
    if (!t.attention) continue;
    bytes += recorded_numbers(*t.attention) * kHeldBytesPerNumber;
    bytes += t.attention->layer_states.size() * static_cast<size_t>(t.attention->decoder_layers) *
             lens * 64;  // a token and its probability
  }
  for (const std::string& record : slice.records) bytes += 2 * record.size();
  return bytes;
}

}  // namespace minimt
