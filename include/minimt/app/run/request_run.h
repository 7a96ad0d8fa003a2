// run_request: a planned request (request_plan.h) over lines from any source (batch_runner.h's
// LineSource), each line's record to any sink, in input order: the CLI writes them to -o and
// its warnings to stderr; a server would answer its clients with them.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/io/line_source.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/app/views/terminal_heatmap.h"
#include "minimt/model/model.h"

namespace minimt {

// What a front end may tell its user about one line (JSON Lines records carry it too).
struct LineNotice {
  long long line = 0;                // numbered from 1
  std::string error;                 // not empty: the line failed and has no translation
  bool truncated = false;            // the source was cut (to kMaxLineBytes or max_positions)
  std::vector<std::string> unknown;  // words of the source with a part read as <unk>
  std::vector<std::string> target_unknown;  // score: the same for the target
  bool scored = false;                      // score: a source and a target, each named
  bool cut_short = false;                   // translate: it stopped at the length limit, before eos
  size_t output_tokens = 0;                 // the tokens it had then
};

// Where the records go.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void notice(const LineNotice& notice) = 0;  // each line's, before its record
  // One line's record (text or JSON Lines, ending in '\n'); false stops the run (nobody reads
  // any more).
  virtual bool write(const std::string& record) = 0;
  // After each batch's records, with the records written so far; false stops the run.
  virtual bool batch_written(long long written) = 0;
  // record.show: one line's heatmap, drawn as AttentionSinks::show_style says, before its
  // record. A sink that has nowhere to draw drops it.
  virtual void picture(const std::string& heatmap) { (void)heatmap; }
};

// The attention outputs the request asks for (record.dump_attention, record.view).
struct AttentionSinks {
  std::ostream* dump = nullptr;  // the dump, streamed as the records are written
  std::ostream* page = nullptr;  // the page, written once every record is
  TerminalStyle show_style;      // how record.show's heatmaps are drawn (RecordSink::picture)
  // Each line's attention as recorded (record.dump_attention), in input order, with the dump's
  // header: for a front end that keeps the struct rather than its JSON (the Python module).
  std::function<void(const AttentionDump& header, DumpSentence sentence)> sentences;
};

struct RunSummary {
  long long written = 0;   // records
  long long failures = 0;  // lines that failed
  ViewSummary page;        // what the page shows, when there is one
};

// Translates (or scores) the lines in batches on worker threads, as `plan` says, and hands each
// line's notice and record to `records` in input order, its attention to the dump and page.
// Stops at the end of the lines, when the sink says so, or after a failed line with fail_fast;
// the dump is then closed and the page written. Throws what the source, the sinks or the page
// throw.
RunSummary run_request(std::shared_ptr<const Model> model, const RequestPlan& plan,
                       LineSource& lines, RecordSink& records, const AttentionSinks& attention);

}  // namespace minimt
