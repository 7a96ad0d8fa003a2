#include "minimt/app/batch_runner.h"

#include <algorithm>
#include <chrono>

#include "minimt/app/ordered_pipeline.h"

namespace minimt {
namespace {

using ReadBatch = std::function<bool(LineBatch&, const std::atomic<bool>&)>;

void run(const Translator& translator, const BatchOptions& options, const BatchCallbacks& callbacks,
         ReadBatch read) {
  PipelineStages<LineBatch> stages;
  stages.read = std::move(read);
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
  run_ordered_pipeline(threads, 4 * threads, stages);  // at most 4 batches per thread in flight
}

}  // namespace

void translate_lines(const Translator& translator, LineReader& reader, const BatchOptions& options,
                     const BatchCallbacks& callbacks) {
  const size_t batch_size = static_cast<size_t>(std::max(options.batch_size, 1));
  // A regular file never makes a reader wait long: fill every batch. Anything else may be a
  // person typing or a program that sends a line and waits for its answer.
  const bool fill_batches = reader.regular_file();
  run(translator, options, callbacks, [&](LineBatch& batch, const std::atomic<bool>& cancelled) {
    batch.first_line = reader.lines_read() + 1;
    std::string line;
    if (reader.next(line, true, &cancelled) != LineReader::Status::kLine) return false;
    batch.lines.push_back(std::move(line));
    while (batch.lines.size() < batch_size &&
           reader.next(line, fill_batches, &cancelled) == LineReader::Status::kLine)
      batch.lines.push_back(std::move(line));
    return true;
  });
}

void translate_lines(const Translator& translator, const std::vector<std::string>& lines,
                     const BatchOptions& options, const BatchCallbacks& callbacks) {
  const size_t batch_size = static_cast<size_t>(std::max(options.batch_size, 1));
  size_t next = 0;
  run(translator, options, callbacks, [&](LineBatch& batch, const std::atomic<bool>&) {
    if (next >= lines.size()) return false;
    batch.first_line = static_cast<long long>(next) + 1;
    size_t end = std::min(lines.size(), next + batch_size);
    batch.lines.assign(lines.begin() + next, lines.begin() + end);
    next = end;
    return true;
  });
}

}  // namespace minimt
