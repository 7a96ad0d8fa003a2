// The model's part of Translator::translate: the encoder once for the batch, the search (or
// the given outputs: scored targets, blank lines' ""), then one teacher-forced pass over the
// given outputs, which gives their log-probabilities, and, when asked, over the searched ones,
// which records their attention and alternatives: the attention shown always belongs to the
// output.
#include <memory>

#include "minimt/app/translate/translator.h"
#include "minimt/engine/attention_recorder.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/sampler.h"
#include "translator_job.h"

namespace minimt {

namespace {

// A recorder (a probe) for each record, and none where there is none.
struct Recorders {
  std::vector<std::unique_ptr<AttentionRecorder>> owned;
  Probe* add(AttentionRecord* record, const Model& model) {
    if (!record) return nullptr;
    owned.push_back(std::make_unique<AttentionRecorder>(*record, model.config(), model.weights()));
    return owned.back().get();
  }
};

// One output to re-read by teacher forcing, from the state its sentence started with; a given
// output (not searched) takes its log-probabilities from there.
struct Reread {
  Translation* owner;
  const DecoderState* start;
  bool given;
};

void reread(Decoder& decoder, const std::vector<Reread>& items, const Model& model,
            const TranslateOptions& options) {
  const ModelConfig& c = model.config();
  Recorders recorders;
  std::vector<DecoderState> states(items.size());
  std::vector<DecoderState*> pointers;
  std::vector<const std::vector<int>*> outputs;
  for (size_t i = 0; i < items.size(); ++i) {
    states[i].copy_from(*items[i].start);  // shares the cross-attention keys and values
    states[i].probe = recorders.add(items[i].owner->attention.get(), model);
    pointers.push_back(&states[i]);
    outputs.push_back(&items[i].owner->output_ids);
  }
  std::vector<ForcedOutput> forced =
      teacher_force(decoder, pointers, outputs, c.decoder_start_token, options.alternatives,
                    c.target_vocab_size, options.logit_lens);
  const bool scoring = options.columns == LineColumns::kSourceAndTarget;
  for (size_t i = 0; i < items.size(); ++i) {
    Translation& owner = *items[i].owner;
    if (items[i].given) {
      Hypothesis given{owner.output_ids, forced[i].log_probs, true};
      owner.log_probs = given.log_probs;
      owner.score = given.score();
      owner.ranking_score = ranking_score(given, scoring ? 0.0f : options.length_penalty);
    }
    owner.alternatives = std::move(forced[i].alternatives);
    owner.layer_predictions = std::move(forced[i].layer_predictions);
  }
}

}  // namespace

SearchOptions Translator::search_options(const TranslateOptions& options) const {
  const ModelConfig& c = model_->config();
  SearchOptions search;
  search.start_token = c.decoder_start_token;
  search.eos = c.special.eos;
  search.max_length = effective_max_length(options.max_length);
  search.beam_size = options.beam_size;
  search.n_best = options.n_best;
  search.length_penalty = options.length_penalty;
  search.sampling = options.sampling;
  search.rules.no_repeat_ngram_size = options.no_repeat_ngram_size;
  search.rules.repetition_penalty = options.repetition_penalty;
  // What the checkpoint asks of every run (docs/model-format.md, "Generation settings").
  const GenerationConfig& g = c.generation;
  search.rules.bad_words = g.bad_words;
  search.rules.forced_last_token = g.forced_last_token;
  search.beam_rules = g.beam_rules;
  const GenerationSettings& task =
      options.task.empty() ? g.settings : g.find_task(options.task).settings;
  search.early_stopping =
      task.early_stopping.value_or(g.settings.early_stopping.value_or(EarlyStopping::kFalse));
  return search;
}

void Translator::run(std::vector<Job>& jobs, std::vector<Translation>& results,
                     const TranslateOptions& options) const {
  const ModelConfig& c = model_->config();
  std::vector<std::vector<int>> sources;
  Recorders recorders;
  std::vector<Probe*> probes;  // each sentence's recorder, or none
  for (const Job& job : jobs) {
    sources.push_back(results[job.index].source_ids);
    probes.push_back(recorders.add(results[job.index].attention.get(), *model_));
  }
  Encoder encoder(c, model_->weights());
  Decoder decoder(c, model_->weights());
  encoder.set_head_mask(options.head_mask.get());
  decoder.set_head_mask(options.head_mask.get());
  EncodedBatch encoded = encoder.forward(sources, probes);    // the encoder runs once
  std::vector<DecoderState> states = decoder.start(encoded);  // cross K/V projected once
  const bool scoring = options.columns == LineColumns::kSourceAndTarget;
  const bool recording = options.record_attention || options.alternatives > 0;

  // Given outputs (scored targets, blank lines' "") wait for the re-reading; the others are
  // searched together, from states the search uses up: fresh copies (sharing the cross K/V)
  // stay to re-read from when their attention or alternatives are asked for.
  std::vector<DecoderState> fresh(recording ? states.size() : 0);
  std::vector<DecoderState> searched_states;
  std::vector<SearchRequest> requests;
  std::vector<size_t> searched;  // indices into jobs
  for (size_t k = 0; k < jobs.size(); ++k) {
    const Job& job = jobs[k];
    Translation& result = results[job.index];
    if (job.given) {
      result.output_ids = job.target_ids;
      result.given_tokens = static_cast<int>(job.target_ids.size());
      result.text = scoring ? result.target : "";
      result.finished =
          scoring || (!job.target_ids.empty() && job.target_ids.back() == c.special.eos);
      continue;
    }
    if (recording) fresh[k].copy_from(states[k]);
    searched.push_back(k);
    searched_states.push_back(std::move(states[k]));
    requests.push_back(
        {job.prefix_ids,
         line_seed(options.seed, options.first_line + static_cast<long long>(job.index))});
  }
  if (!searched.empty()) {
    auto hypotheses =
        search(decoder, searched_states, requests, search_options(options), c.target_vocab_size);
    for (size_t i = 0; i < searched.size(); ++i) {
      Translation& result = results[jobs[searched[i]].index];
      const auto& list = hypotheses[i];
      fill(result, list.empty() ? Hypothesis{} : list.front(), options);
      result.given_tokens =
          static_cast<int>(std::min(jobs[searched[i]].prefix_ids.size(), result.output_ids.size()));
      if (options.n_best <= 1 && !options.keep_n_best) continue;
      for (const Hypothesis& hypothesis : list) {
        Translation entry;
        entry.source = result.source;
        entry.source_ids = result.source_ids;
        fill(entry, hypothesis, options);
        result.n_best.push_back(std::move(entry));
      }
    }
  }

  std::vector<Reread> items;
  for (size_t k = 0; k < jobs.size(); ++k) {
    Translation& result = results[jobs[k].index];
    if (jobs[k].given) {
      items.push_back({&result, &states[k], true});
      continue;
    }
    if (!recording) continue;
    items.push_back({&result, &fresh[k], false});
    if (!options.record_attention || !options.record_n_best) continue;
    for (size_t r = 1; r < result.n_best.size(); ++r) {
      result.n_best[r].attention = std::make_shared<AttentionRecord>(AttentionRecord::for_sentence(
          c, result.attention->source_length, options.record_cross_only));
      items.push_back({&result.n_best[r], &fresh[k], false});
    }
  }
  if (items.empty()) return;
  reread(decoder, items, *model_, options);
  for (const Job& job : jobs) {
    Translation& result = results[job.index];
    // A blank line's one hypothesis, in the n-best list as a searched line's are.
    if (job.given && !scoring && (options.n_best > 1 || options.keep_n_best)) {
      Translation entry = result;
      result.n_best.push_back(std::move(entry));
    }
    if (result.n_best.empty()) continue;
    result.n_best[0].attention = result.attention;
    result.n_best[0].alternatives = result.alternatives;
  }
}

}  // namespace minimt
