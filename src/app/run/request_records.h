// What a request's run does with each translated line (request_run.h runs it over a LineSource,
// serving_queue.h over its clients' lines): the line's record, made on the worker thread that
// translated it, then, in input order, its notice and record to the sink and its attention to the
// dump and the page. Private to app.
#pragma once

#include <optional>
#include <string>

#include "minimt/app/record/attention_dump.h"
#include "minimt/app/record/dump_recorder.h"
#include "minimt/app/run/output_record.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "minimt/app/translate/batch_runner.h"
#include "minimt/app/views/attention_view.h"

namespace minimt {
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

// A line's notice (request_run.h) from its translation.
LineNotice make_notice(const Translation& translation, long long line, bool scoring);

// One run: what happens to each translated batch, and to the attention.
class RequestRun {
 public:
  // page_options: how the page (record.view) is written.
  RequestRun(const Model& model, const RequestPlan& plan, RecordSink& records,
             const AttentionSinks& attention, ViewOptions page_options = {});

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
  std::optional<DumpRecorder> recorder_;  // of the dump and the page
  std::optional<AttentionDumpWriter> dump_;
  std::optional<AttentionDump> page_;          // the page's sentences, drawn at the end
  std::optional<DumpRecorder> show_recorder_;  // of record.show's heatmaps
  const ViewOptions page_options_;
  RunSummary summary_;
};

}  // namespace minimt
