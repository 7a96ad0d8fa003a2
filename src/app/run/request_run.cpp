// run_request (request_run.h): batches of lines through the translator, each translation made
// into its record on the worker thread that translated it, then handed out in input order with
// its notice, its attention added to the dump and the page.
#include "minimt/app/run/request_run.h"

#include "app/run/request_records.h"

namespace minimt {

RunSummary run_request(std::shared_ptr<const Model> model, const RequestPlan& plan,
                       LineSource& lines, RecordSink& records, const AttentionSinks& attention) {
  if ((plan.request.record.dump_attention && !attention.dump && !attention.sentences) ||
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
