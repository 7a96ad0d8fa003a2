// A Python call's run (python_run.h).
#include "python/python_run.h"

#include "minimt/app/io/line_source.h"
#include "minimt/app/run/generation_defaults.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"

namespace py = pybind11;

namespace minimt::python {
namespace {

// Keeps every record; between batches, looks for a signal (Ctrl-C) with the GIL held.
class MemorySink : public RecordSink {
 public:
  explicit MemorySink(std::vector<std::string>& records) : records_(records) {}
  void notice(const LineNotice&) override {}  // the JSON Lines records carry the same
  bool write(const std::string& record) override {
    records_.push_back(record);
    return true;
  }
  bool batch_written(long long) override {
    py::gil_scoped_acquire hold;
    interrupted_ = PyErr_CheckSignals() != 0;  // sets KeyboardInterrupt
    return !interrupted_;
  }
  bool interrupted() const { return interrupted_; }

 private:
  std::vector<std::string>& records_;
  bool interrupted_ = false;
};

}  // namespace

RunOutput run_lines(const std::shared_ptr<const Model>& model, PythonRequest input,
                    std::vector<std::string> lines, int threads, int batch_size) {
  Request& request = input.request;
  request.threads = threads;
  request.batch_size = batch_size;
  RunOutput output;
  const std::string taken = apply_generation_defaults(
      request, model->config(),
      [&input](const std::string& field) { return input.given.count(field) > 0; },
      FieldSpelling::kJson);
  if (!taken.empty()) output.warnings.push_back("the model's settings: " + taken);
  const RequestPlan plan = plan_request(request, *model, FieldSpelling::kJson);
  output.warnings.insert(output.warnings.end(), plan.warnings.begin(), plan.warnings.end());

  MemoryLines source(std::move(lines));
  MemorySink sink(output.records);
  AttentionSinks sinks;
  std::shared_ptr<const AttentionDump> header;  // shared by the call's sentences
  sinks.sentences = [&](const AttentionDump& dump, DumpSentence sentence) {
    if (!header) header = std::make_shared<const AttentionDump>(dump);
    output.attention.push_back(
        std::make_shared<SentenceAttention>(SentenceAttention{header, std::move(sentence)}));
  };
  {
    py::gil_scoped_release free;
    run_request(model, plan, source, sink, sinks);
  }
  if (sink.interrupted()) throw py::error_already_set();
  return output;
}

}  // namespace minimt::python
