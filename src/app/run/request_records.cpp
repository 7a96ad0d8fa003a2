// The records of a request's run (request_records.h).
#include "app/run/request_records.h"

#include <utility>

#include "minimt/app/views/attention_show.h"
#include "minimt/base/error.h"

namespace minimt {

OutputRecord RecordMaker::make(const Translation& t, long long line, double time_ms) const {
  const Request& request = plan_.request;
  OutputRecord record = make_output_record(model_, t, line, time_ms, scoring());
  record.has_n_best = request.search.n_best.has_value();
  // A blank line's one hypothesis is the empty translation, in the list as everywhere else.
  if (record.has_n_best && record.error.empty() && record.n_best.empty())
    record.n_best.push_back(record);
  // The translation may hold more alternatives than asked for: the dump and page keep some.
  const size_t alternatives = static_cast<size_t>(request.record.alternatives);
  record.alternatives.resize(alternatives > 0 ? record.alternatives.size() : 0);
  for (auto& position : record.alternatives)
    if (position.size() > alternatives) position.resize(alternatives);
  const bool penalized = request.search.length_penalty != 0.0f && !scoring();
  const bool align = request.record.align;
  if (penalized) record.ranking_score = t.ranking_score;
  for (size_t r = 0; r < record.n_best.size(); ++r) {
    if (penalized) record.n_best[r].ranking_score = t.n_best[r].ranking_score;
    if (align)
      record.n_best[r].alignment =
          to_pharaoh(align_translation(t.n_best[r], model_, plan_.alignment).links);
  }
  if (align) record.alignment = to_pharaoh(align_translation(t, model_, plan_.alignment).links);
  return record;
}

std::string RecordMaker::format(const OutputRecord& record) const {
  if (plan_.request.format == OutputFormat::kJsonl)
    return scoring() ? score_jsonl_line(record) : jsonl_line(record);
  if (scoring()) return score_text_line(record);
  return plan_.request.search.n_best ? n_best_text_lines(record) : text_line(record);
}

LineNotice make_notice(const Translation& t, long long line, bool scoring) {
  LineNotice notice;
  notice.line = line;
  notice.error = t.error;
  notice.truncated = t.truncated;
  notice.unknown = t.unknown;
  notice.target_unknown = t.target_unknown;
  notice.scored = scoring;
  notice.cut_short = t.ok() && !t.finished && !scoring;
  notice.output_tokens = t.output_ids.size();
  return notice;
}

// One run: what happens to each translated batch, and to the attention.

RequestRun::RequestRun(const Model& model, const RequestPlan& plan, RecordSink& records,
                       const AttentionSinks& attention, ViewOptions page_options)
    : plan_(plan),
      make_record_(model, plan),
      records_(records),
      attention_(attention),
      model_(model),
      page_options_(std::move(page_options)) {
  const RecordSettings& record = plan.request.record;
  if (record.dump_attention || record.view) recorder_.emplace(model, plan.selection);
  if (record.dump_attention && attention.dump) dump_.emplace(*attention.dump, recorder_->header());
  if (record.view) page_.emplace(recorder_->header());
  if (plan.show) show_recorder_.emplace(model, plan.show_selection);
}

void RequestRun::render(LineBatch& batch) const {
  // time_ms: the batch's wall time shared equally among its lines.
  const double per_line = batch.milliseconds / static_cast<double>(batch.lines.size());
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    Translation& t = batch.translations[i];
    batch.records.push_back(make_record_(t, batch.first_line + i, per_line));
    // Only the alignment needed it.
    if (!recorder_ && !plan_.show) t.attention.reset();
    for (Translation& entry : t.n_best) entry.attention.reset();
  }
}

bool RequestRun::write(LineBatch& batch) {
  const bool scoring = plan_.request.kind == RequestKind::kScore;
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    const Translation& t = batch.translations[i];
    records_.notice(make_notice(t, batch.first_line + i, scoring));
    if (plan_.show) records_.picture(picture(t, batch.first_line + i));
    if (!t.ok()) ++summary_.failures;
    if (!records_.write(batch.records[i])) return false;
    if (recorder_) {
      const int number = page_ ? static_cast<int>(page_->sentences.size()) + 1 : 0;
      DumpSentence sentence = recorder_->record(t, number);
      if (dump_) dump_->add(sentence);
      if (attention_.sentences && plan_.request.record.dump_attention)
        attention_.sentences(recorder_->header(), page_ ? sentence : std::move(sentence));
      if (page_) page_->sentences.push_back(std::move(sentence));
    }
    ++summary_.written;
    if (!t.ok() && plan_.request.fail_fast) return false;
  }
  return records_.batch_written(summary_.written);
}

// The line's attention as a one-sentence dump, drawn as minimt show draws one.
std::string RequestRun::picture(const Translation& t, long long line) const {
  AttentionDump dump = show_recorder_->header();
  dump.sentences.push_back(show_recorder_->record(t, static_cast<int>(line)));
  ShowOptions options;
  options.choice = *plan_.show;
  options.style = attention_.show_style;
  options.header = false;
  try {
    return show_dump(dump, options);
  } catch (const Error& e) {  // nothing to draw for this line (no rows): said, the run goes on
    return "line " + std::to_string(line) + ": no picture: " + e.what() + "\n";
  }
}

RunSummary RequestRun::finish() {
  if (dump_) dump_->finish();
  if (page_) {
    summary_.page = write_attention_page(*page_, *attention_.page, page_options_);
    page_.reset();
  }
  return summary_;
}

}  // namespace minimt
