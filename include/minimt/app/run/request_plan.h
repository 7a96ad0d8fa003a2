// RequestPlan: what a Request (request.h) means for a run against one model, every option
// derived from it once: the translator's options, the alignment's and the dump selection.
#pragma once

#include "minimt/app/analysis/alignment.h"
#include "minimt/app/record/dump.h"
#include "minimt/app/run/request.h"
#include "minimt/app/translate/batch_runner.h"
#include "minimt/app/views/terminal_heatmap.h"
#include "minimt/model/model.h"

namespace minimt {

struct RequestPlan {
  Request request;             // as checked, with its seed when it samples
  BatchOptions batch;          // threads resolved; what the translator records and keeps
  AlignmentOptions alignment;  // with record.align: checked against the model
  DumpSelection selection;     // of the dump and the page: checked against the model
  // record.show: the heatmap drawn for each line, and what of the attention it needs.
  std::optional<HeatmapChoice> show;
  DumpSelection show_selection;
  // What the user should read once, before the records (a warning: the run goes on).
  std::vector<std::string> warnings;
};

// Checks the request (check_request), draws a seed when it samples without one, then checks it
// against the model: the head mask (RequestError naming mask_heads), the alignment's layer and
// heads and the dump selection (Error, as alignment.h and dump_recorder.h say them), and the
// layer and head record.show names (RequestError naming show).
RequestPlan plan_request(const Request& request, const Model& model,
                         FieldSpelling spelling = FieldSpelling::kOption);

}  // namespace minimt
