// run_request (request_run.h): batches of lines through the translator, each translation made
// into its record on the worker thread that translated it, then handed out in input order with
// its notice, its attention added to the dump and the page.
#include "minimt/app/request_run.h"

#include <optional>
#include <sstream>

#include "minimt/app/attention_show.h"
#include "minimt/app/output_record.h"

namespace minimt {
namespace {

// The output record of one line, as the request asks for it.
class RecordMaker {
 public:
  RecordMaker(const Model& model, const RequestPlan& plan) : model_(model), plan_(plan) {}

  std::string operator()(const Translation& translation, long long line, double time_ms) const {
    return format(make(translation, line, time_ms));
  }

 private:
  bool scoring() const { return plan_.request.kind == RequestKind::kScore; }
  OutputRecord make(const Translation& translation, long long line, double time_ms) const;
  std::string format(const OutputRecord& record) const;

  const Model& model_;
  const RequestPlan& plan_;
};

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
  notice.cut_short = t.ok() && !t.finished && !scoring;
  notice.output_tokens = t.output_ids.size();
  return notice;
}

// One run: what happens to each translated batch, and to the attention.
class RequestRun {
 public:
  RequestRun(const Model& model, const RequestPlan& plan, RecordSink& records,
             const AttentionSinks& attention);

  void render(LineBatch& batch) const;  // worker threads: the records of a translated batch
  bool write(LineBatch& batch);         // the calling thread, in input order
  RunSummary finish();

 private:
  std::string picture(const Translation& t, long long line) const;  // record.show's heatmap

  const RequestPlan& plan_;
  const RecordMaker make_record_;
  RecordSink& records_;
  const AttentionSinks attention_;
  const Model& model_;
  std::optional<AttentionDumpWriter> dump_;
  std::ostringstream page_dump_;  // the page's dump, read back at the end
  std::optional<AttentionDumpWriter> page_writer_;
  RunSummary summary_;
};

RequestRun::RequestRun(const Model& model, const RequestPlan& plan, RecordSink& records,
                       const AttentionSinks& attention)
    : plan_(plan),
      make_record_(model, plan),
      records_(records),
      attention_(attention),
      model_(model) {
  if (plan.request.record.dump_attention) dump_.emplace(*attention.dump, model, plan.selection);
  if (plan.request.record.view) page_writer_.emplace(page_dump_, model, plan.selection);
}

void RequestRun::render(LineBatch& batch) const {
  // time_ms: the batch's wall time shared equally among its lines.
  const double per_line = batch.milliseconds / static_cast<double>(batch.lines.size());
  for (size_t i = 0; i < batch.translations.size(); ++i) {
    Translation& t = batch.translations[i];
    batch.records.push_back(make_record_(t, batch.first_line + i, per_line));
    // Only the alignment needed it.
    if (!dump_ && !page_writer_ && !plan_.show) t.attention.reset();
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
    if (dump_) dump_->add(t);
    if (page_writer_) page_writer_->add(t);
    ++summary_.written;
    if (!t.ok() && plan_.request.fail_fast) return false;
  }
  return records_.batch_written(summary_.written);
}

// The line's attention written as a one-sentence dump and read back, as minimt show reads one.
std::string RequestRun::picture(const Translation& t, long long line) const {
  std::ostringstream text;
  AttentionDumpWriter writer(text, model_, plan_.show_selection);
  writer.add(t);
  writer.finish();
  std::istringstream in(text.str());
  AttentionDump dump = read_attention_dump(in, "the attention of line " + std::to_string(line));
  dump.sentences.at(0).number = static_cast<int>(line);
  ShowOptions options;
  options.choice = *plan_.show;
  options.style = attention_.show_style;
  options.header = false;
  return show_dump(dump, options);
}

RunSummary RequestRun::finish() {
  if (dump_) dump_->finish();
  if (page_writer_) {
    page_writer_->finish();
    std::istringstream in(page_dump_.str());
    page_dump_.str("");
    summary_.page = write_attention_page(read_attention_dump(in, "the attention of this run"),
                                         *attention_.page, ViewOptions());
  }
  return summary_;
}

}  // namespace

RunSummary run_request(std::shared_ptr<const Model> model, const RequestPlan& plan,
                       LineSource& lines, RecordSink& records, const AttentionSinks& attention) {
  if ((plan.request.record.dump_attention && !attention.dump) ||
      (plan.request.record.view && !attention.page))
    throw Error("run_request: the request records attention and no sink takes it");
  const Translator translator(model);
  RequestRun run(*model, plan, records, attention);
  BatchCallbacks callbacks;
  callbacks.render = [&](LineBatch& batch) { run.render(batch); };
  callbacks.write = [&](LineBatch& batch) { return run.write(batch); };
  translate_lines(translator, lines, plan.batch, callbacks);
  return run.finish();
}

}  // namespace minimt
