// One call of Model.translate or Model.score: the lines through app's run_request, as the CLI
// runs them, with the records and the attention kept in memory for Python.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minimt/app/record/dump.h"
#include "minimt/model/model.h"
#include "python/python_request.h"

namespace minimt::python {

// One sentence's attention with the dump's header it came in (model, compute type, masked heads,
// notes), so that a page or a dump can be made of any sentences, from one call or several.
struct SentenceAttention {
  std::shared_ptr<const AttentionDump> header;  // its sentences are not used
  DumpSentence sentence;
};

struct RunOutput {
  std::vector<std::string> records;  // one JSON Lines record per line, in input order
  std::vector<std::shared_ptr<SentenceAttention>> attention;  // one per line, when asked for
  std::vector<std::string> warnings;  // for the user once (the model's settings taken, ...)
};

// Runs the request over `lines` with `threads` worker threads and `batch_size` lines per batch.
// The caller holds the GIL; it is released while the engine runs and taken again between
// batches to look for a signal: a KeyboardInterrupt stops the run and is raised
// (pybind11::error_already_set).
RunOutput run_lines(const std::shared_ptr<const Model>& model, PythonRequest request,
                    std::vector<std::string> lines, int threads, int batch_size);

}  // namespace minimt::python
