// The table of a dump sentence's keys (dump_keys.h) and what goes through it.
#include "app/record/dump_keys.h"

#include <algorithm>

#include "app/record/attribution_keys.h"
#include "app/record/matrix_keys.h"
#include "app/record/sentence_keys.h"

namespace minimt::dump_keys {
namespace {

using nlohmann::json;
namespace schema = dump_schema;

bool always(const DumpSelection&) {
  return true;
}
bool scores(const DumpSelection& s) {
  return s.scores;
}
bool vectors(const DumpSelection& s) {
  return s.vectors;
}
bool norms(const DumpSelection& s) {
  return s.norms;
}
bool rollout(const DumpSelection& s) {
  return s.rollout;
}
bool logit_lens(const DumpSelection& s) {
  return s.logit_lens > 0;
}
bool attributions(const DumpSelection& s) {
  return s.attributions;
}

constexpr Scope kSentence = Scope::kSentence, kEachType = Scope::kEachType;
constexpr Along kQueries = Along::kQueries, kKeys = Along::kKeys, kWidth = Along::kWidth,
                kNone = Along::kNone;
constexpr Cells kWeight = Cells::kWeight, kFinite = Cells::kFinite, kScore = Cells::kScore,
                kNonNegative = Cells::kNonNegative;

// In the order of the dump: within a sentence, its keys in this order, the rows of each type
// for one type after another (encoder, decoder, cross: schema::kAttentionTypes). A row of each
// type named "" is the type's weights (its key, type.key); the others' keys are the type's
// prefix and the name. A reader reads the rows `after_weights` (checked against the weights)
// after all others. Shapes and cells matter only to a type's matrices.
const DumpKey kDumpKeys[] = {
    // name, scope, asked, after_weights, rows, cols, cells, record, write, read
    {schema::kSourceTokens, kSentence, always, false, kNone, kNone, kFinite, record_tokens,
     write_tokens, read_tokens},
    {schema::kDecoderInputTokens, kSentence, always, false, kNone, kNone, kFinite, record_tokens,
     write_tokens, read_tokens},
    {schema::kOutputTokens, kSentence, always, false, kNone, kNone, kFinite, record_tokens,
     write_tokens, read_tokens},
    {schema::kGivenTokens, kSentence, always, false, kNone, kNone, kFinite, record_given_tokens,
     write_given_tokens, read_given_tokens},
    {schema::kOutputLogProbs, kSentence, always, false, kNone, kNone, kFinite, record_log_probs,
     write_log_probs, read_log_probs},
    {schema::kAlternatives, kSentence, always, false, kNone, kNone, kFinite, record_alternatives,
     write_alternatives, read_alternatives},
    {"", kEachType, always, false, kQueries, kKeys, kWeight, record_weights, write_matrices,
     read_weights},
    {schema::kScoresSuffix, kEachType, scores, true, kQueries, kKeys, kScore, record_scores,
     write_matrices, read_extra},
    {schema::kQueriesSuffix, kEachType, vectors, true, kQueries, kWidth, kFinite, record_queries,
     write_matrices, read_extra},
    {schema::kKeysSuffix, kEachType, vectors, true, kKeys, kWidth, kFinite, record_keys,
     write_matrices, read_extra},
    {schema::kValuesSuffix, kEachType, vectors, true, kKeys, kWidth, kFinite, record_values,
     write_matrices, read_extra},
    {schema::kWeightedNormsSuffix, kEachType, norms, true, kQueries, kKeys, kNonNegative,
     record_weighted_norms, write_matrices, read_extra},
    {schema::kHeadNormsSuffix, kEachType, norms, true, kQueries, kNone, kNonNegative,
     record_head_norms, write_matrices, read_extra},
    // No key: a check across the type's queries and keys.
    {nullptr, kEachType, vectors, true, kNone, kNone, kFinite, nullptr, nullptr, check_widths},
    // Both rollouts are recorded with the first.
    {schema::kEncoderRollout, kSentence, rollout, false, kNone, kNone, kFinite, record_rollouts,
     write_rollout, read_rollout},
    {schema::kCrossRollout, kSentence, rollout, false, kNone, kNone, kFinite, nullptr,
     write_rollout, read_rollout},
    {schema::kDecoderLayerPredictions, kSentence, logit_lens, true, kNone, kNone, kFinite,
     record_lens, write_lens, read_lens},
    {schema::kAttributions, kSentence, attributions, false, kNone, kNone, kFinite,
     record_attributions, write_attributions, read_attributions},
};

// Calls visit(slot) for every row in the dump's order (types: those `kept` says yes to).
template <typename Kept, typename Visit>
void for_each_slot(Kept kept, Visit visit) {
  const DumpKey* const end = std::end(kDumpKeys);
  for (const DumpKey* row = std::begin(kDumpKeys); row != end;) {
    if (row->scope == kSentence) {
      visit(Slot{*row, nullptr, row->name ? row->name : ""});
      ++row;
      continue;
    }
    const DumpKey* group_end =
        std::find_if(row, end, [](const DumpKey& r) { return r.scope != kEachType; });
    for (const schema::AttentionType& type : schema::kAttentionTypes) {
      if (!kept(type)) continue;
      for (const DumpKey* r = row; r != group_end; ++r) {
        const std::string name = r->name ? r->name : "";
        visit(Slot{*r, &type,
                   !r->name       ? ""
                   : name.empty() ? std::string(type.key)
                                  : type.prefix + name});
      }
    }
    row = group_end;
  }
}

auto every_type = [](const schema::AttentionType&) { return true; };

}  // namespace

void open_key(std::ostream& out, const Slot& slot, bool new_line) {
  out << (new_line ? ",\n \"" : ",\"") << slot.key << "\":";
}

void record_keys(const Recording& r, DumpSentence& s) {
  const std::vector<std::string>& types = r.selection.types;
  auto kept = [&](const schema::AttentionType& type) {
    return types.empty() || std::find(types.begin(), types.end(), type.type) != types.end();
  };
  for_each_slot(kept, [&](const Slot& slot) {
    if (slot.row.record && slot.row.asked(r.selection)) slot.row.record(r, slot, s);
  });
}

void write_keys(std::ostream& out, const DumpSentence& s) {
  for_each_slot(every_type, [&](const Slot& slot) {
    if (slot.row.write) slot.row.write(out, slot, s);
  });
}

void read_keys(const json& entry, const Reading& reading, DumpSentence& s) {
  for (bool after_weights : {false, true})
    for_each_slot(every_type, [&](const Slot& slot) {
      if (slot.row.after_weights != after_weights) return;
      auto it = slot.row.name ? entry.find(slot.key) : entry.end();
      slot.row.read(it == entry.end() ? nullptr : &*it, reading, slot, s);
    });
}

}  // namespace minimt::dump_keys
