#include "minimt/app/translate/translator.h"

#include <algorithm>

#include "minimt/app/translate/target_prefix.h"
#include "minimt/base/error.h"
#include "minimt/base/text_input.h"
#include "minimt/base/utf8.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/sampler.h"
#include "translator_job.h"

namespace minimt {
namespace {

constexpr size_t kMaxUnknownListed = 100;  // distinct unknown words kept per sentence

// The distinct words of normalized text that the tokenizer reads (partly) as <unk>, when its ids
// hold one: the first kMaxUnknownListed.
std::vector<std::string> unknown_words_of(const Tokenizer& tokenizer, const std::string& normalized,
                                          const std::vector<int>& ids) {
  std::vector<std::string> listed;
  if (std::none_of(ids.begin(), ids.end(), [&](int id) { return tokenizer.is_unknown(id); }))
    return listed;
  for (std::string& word : tokenizer.unknown_words(normalized))
    if (listed.size() < kMaxUnknownListed &&
        std::find(listed.begin(), listed.end(), word) == listed.end())
      listed.push_back(std::move(word));
  return listed;
}

// 'a', 'b': the words, quoted.
std::string quoted(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "'" : ", '") + word + "'";
  return text;
}

}  // namespace

std::vector<int> target_prefix_ids(const Model& model, const std::string& prefix) {
  const ModelConfig& c = model.config();
  std::vector<int> ids;
  if (c.forced_first_token >= 0) ids.push_back(c.forced_first_token);
  if (is_blank_input(prefix)) return ids;
  const long long bad = find_invalid_utf8(prefix);
  if (bad >= 0) throw InputError("invalid UTF-8 at byte " + std::to_string(bad));
  const Tokenizer& target = model.target_tokenizer();
  const std::string normalized = normalize_input(prefix);
  const std::vector<int> pieces = target.encode(normalized);
  // Forced, an unknown word would be the <unk> piece: no translation holds it, and the model
  // would go on from a word it was never shown.
  const std::vector<std::string> unknown = unknown_words_of(target, normalized, pieces);
  if (!unknown.empty())
    throw InputError("the target vocabulary cannot spell " + quoted(unknown) +
                     " (forced, it would be <unk>); see minimt vocab --side target");
  ids.insert(ids.end(), pieces.begin(), pieces.end());
  // The decoder reads <s> and every forced piece before the first piece it chooses.
  if (static_cast<int>(ids.size()) >= c.max_positions)
    throw InputError("it is " + std::to_string(ids.size()) +
                     " pieces long; the model writes at most " + std::to_string(c.max_positions) +
                     " (max_positions), so a prefix may hold " +
                     std::to_string(c.max_positions - 1));
  return ids;
}

std::vector<int> Translator::source_ids(const std::string& text, bool* truncated) const {
  std::string kept = text.substr(0, utf8_prefix_length(text, kMaxLineBytes));
  bool cut = kept.size() < text.size();
  std::vector<int> ids = normalized_ids(normalize_input(kept), &cut);
  if (truncated) *truncated = cut;
  return ids;
}

std::vector<int> Translator::normalized_ids(const std::string& text, bool* truncated,
                                            const std::string& task) const {
  const ModelConfig& c = model_->config();
  // A task of the generation block puts its own prefix in place of the model's.
  const std::vector<int>& prefix =
      task.empty() ? c.source_prefix : c.generation.find_task(task).source_prefix;
  std::vector<int> pieces = model_->source_tokenizer().encode(text);
  // The model's prefix and suffix ids around the pieces (v1: eos after them), always kept: the
  // model saw such sentences in training.
  const int room = c.max_positions - static_cast<int>(prefix.size() + c.source_suffix.size());
  if (static_cast<int>(pieces.size()) > room) {
    pieces.resize(room);
    *truncated = true;
  }
  std::vector<int> ids = prefix;
  ids.insert(ids.end(), pieces.begin(), pieces.end());
  ids.insert(ids.end(), c.source_suffix.begin(), c.source_suffix.end());
  return ids;
}

int Translator::effective_max_length(int requested) const {
  // The decoder reads the start token at position 0 and output token i at position i + 1,
  // so max_positions inputs allow max_positions output tokens.
  return std::max(0, std::min(requested, model_->config().max_positions));
}

bool Translator::prepare(const std::string& sentence, const TranslateOptions& options,
                         Translation& result, Job& job) const {
  const ModelConfig& c = model_->config();
  // Cut before anything else reads it: a 10 MB line costs what a 64 KiB one does.
  std::string line = sentence.substr(0, utf8_prefix_length(sentence, kMaxLineBytes));
  result.source = line;
  result.truncated = line.size() < sentence.size();
  long long bad = find_invalid_utf8(line);
  if (bad >= 0) {
    result.error = "invalid UTF-8 at byte " + std::to_string(bad);
    return false;
  }
  const bool scoring = options.columns == LineColumns::kSourceAndTarget;
  result.prefix = options.prefix;
  bool own_prefix = false;  // the line's second column, not --prefix
  if (options.columns != LineColumns::kSource) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos && scoring) {
      result.error = "expected source<TAB>target, but the line has no tab";
      return false;
    }
    if (tab != std::string::npos) {
      result.source = line.substr(0, tab);
      (scoring ? result.target : result.prefix) = line.substr(tab + 1);
      own_prefix = !scoring;
    }
  }
  // A blank source is not searched: its translation is "", scored as the model reads it.
  const bool blank = !scoring && is_blank_input(result.source);
  const Tokenizer& target = model_->target_tokenizer();
  try {
    // A blank source reads as "", whatever invisible characters it holds (text_input.h).
    const std::string normalized =
        is_blank_input(result.source) ? std::string() : normalize_input(result.source);
    result.source_ids = normalized_ids(normalized, &result.truncated, options.task);
    result.unknown = unknown_words_of(model_->source_tokenizer(), normalized, result.source_ids);
    // A forced first token (format v2) starts every output, searched or given.
    const std::vector<int> forced =
        c.forced_first_token >= 0 ? std::vector<int>{c.forced_first_token} : std::vector<int>{};
    job.prefix_ids = forced;
    if (!blank) {
      try {
        job.prefix_ids = target_prefix_ids(*model_, result.prefix);
      } catch (const InputError& e) {
        throw InputError(std::string(own_prefix ? "the prefix after the tab" : "--prefix") + ": " +
                         e.what());
      }
    }
    if (blank) {
      job.given = true;
      job.target_ids = forced;
      job.target_ids.push_back(c.special.eos);
      // --max-length cuts it as it cuts a searched output (--max-length 0: nothing).
      job.target_ids.resize(std::min(
          job.target_ids.size(), static_cast<size_t>(effective_max_length(options.max_length))));
    } else if (scoring) {
      job.given = true;
      job.target_ids = forced;
      const std::string normalized_target = normalize_input(result.target);
      const std::vector<int> ids = target.encode(normalized_target);
      result.target_unknown = unknown_words_of(target, normalized_target, ids);
      job.target_ids.insert(job.target_ids.end(), ids.begin(), ids.end());
      job.target_ids.push_back(c.special.eos);
      if (static_cast<int>(job.target_ids.size()) > c.max_positions)
        throw InputError("the target is " + std::to_string(job.target_ids.size()) +
                         " pieces long with eos; the model reads at most " +
                         std::to_string(c.max_positions) + " (max_positions)");
    }
  } catch (const InputError& e) {
    result.error = e.what();
    return false;
  }
  if (options.record_attention)
    result.attention = std::make_shared<AttentionRecord>(
        AttentionRecord::for_sentence(c, static_cast<int>(result.source_ids.size()),
                                      options.record_cross_only, options.record_extras));
  return true;
}

void Translator::fill(Translation& result, const Hypothesis& hypothesis,
                      const TranslateOptions& options) const {
  result.output_ids = hypothesis.tokens;
  result.log_probs = hypothesis.log_probs;
  result.score = hypothesis.score();
  // As the search ranked it (a cut hypothesis counts one more token under generate()'s rules).
  result.ranking_score =
      ranking_score(hypothesis, options.length_penalty, model_->config().generation.beam_rules);
  result.finished = hypothesis.finished;
  std::vector<int> text_ids = hypothesis.tokens;
  if (hypothesis.finished) text_ids.pop_back();  // the eos
  const int forced = model_->config().forced_first_token;
  if (forced >= 0 && !text_ids.empty() && text_ids.front() == forced)
    text_ids.erase(text_ids.begin());  // a language code, not text
  result.text = model_->target_tokenizer().decode(text_ids);
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences,
                                               const TranslateOptions& options) const {
  std::vector<Translation> results(sentences.size());
  std::vector<Job> jobs;
  for (size_t i = 0; i < sentences.size(); ++i) {
    Job job;
    job.index = i;
    if (prepare(sentences[i], options, results[i], job)) jobs.push_back(std::move(job));
  }
  if (!jobs.empty()) run(jobs, results, options);
  // Teacher-forced on what was translated or scored; a blank line's "" was neither.
  const bool scoring = options.columns == LineColumns::kSourceAndTarget;
  if (!options.attribution.methods.empty())
    for (const Job& job : jobs)
      if (!job.given || scoring) attribute(results[job.index], options);
  return results;
}

void Translator::attribute(Translation& result, const TranslateOptions& options) const {
  if (!result.ok() || result.output_ids.empty()) return;
  AttributionRequest request;
  request.source = result.source_ids;
  request.decoder_input = {model_->config().decoder_start_token};
  request.decoder_input.insert(request.decoder_input.end(), result.output_ids.begin(),
                               result.output_ids.end() - 1);
  request.output = result.output_ids;
  request.methods = options.attribution.methods;
  request.ig_steps = options.attribution.ig_steps;
  request.ig_rule = options.attribution.ig_rule;
  request.head_mask = options.head_mask.get();
  result.attributions =
      std::make_shared<const AttributionResult>(model_->attributor().attribute(request));
  result.attribution = options.attribution;
}

}  // namespace minimt
