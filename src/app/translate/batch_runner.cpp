#include "minimt/app/translate/batch_runner.h"

#include <algorithm>
#include <chrono>

#include "minimt/app/translate/ordered_pipeline.h"

namespace minimt {
namespace {

// Lines in flight: at most this many batches per thread.
constexpr int kBatchesPerThread = 4;

}  // namespace

void translate_lines(const Translator& translator, LineSource& lines, const BatchOptions& options,
                     const BatchCallbacks& callbacks) {
  const size_t batch_size = static_cast<size_t>(std::max(options.batch_size, 1));
  PipelineStages<LineBatch> stages;
  stages.read = [&](LineBatch& batch, const std::atomic<bool>& cancelled) {
    return lines.read(batch.lines, batch.first_line, batch_size, cancelled);
  };
  stages.work = [&](LineBatch& batch) {
    auto start = std::chrono::steady_clock::now();
    TranslateOptions translate = options.translate;
    translate.first_line = batch.first_line;  // the lines' numbers seed their samplers
    batch.translations = translator.translate(batch.lines, translate);
    std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    batch.milliseconds = elapsed.count();
    if (callbacks.render) callbacks.render(batch);
  };
  stages.write = callbacks.write;
  const int threads = std::max(options.threads, 1);
  run_ordered_pipeline(threads, kBatchesPerThread * threads, stages);
}

}  // namespace minimt
