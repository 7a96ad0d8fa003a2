// Batch translation of a stream of lines: consecutive lines are grouped into batches, worker
// threads translate batches side by side with a shared Translator, and the batches come back
// on the calling thread in input order, each as soon as it and every earlier batch are done.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "minimt/app/io/line_source.h"
#include "minimt/app/translate/translator.h"

namespace minimt {

// Consecutive input lines, the unit of work.
struct LineBatch {
  long long first_line = 0;               // the number of lines[0]; lines count from 1
  std::vector<std::string> lines;         // as read, without '\n' or a trailing '\r'
  std::vector<Translation> translations;  // one per line, in order, after translation
  double milliseconds = 0;                // wall time of the Translator::translate call
  std::vector<std::string> records;       // filled by BatchCallbacks::render, if given
};

struct BatchOptions {
  int threads = 1;      // worker threads
  int batch_size = 16;  // lines per batch (fewer when an interactive input has no more yet)
  TranslateOptions translate;
};

struct BatchCallbacks {
  // Optional; worker threads, right after a batch is translated (e.g. format its output).
  std::function<void(LineBatch&)> render;
  // Calling thread, one batch at a time in input order; false stops the run.
  std::function<bool(LineBatch&)> write;
};

// Translates every line of `lines` until their end or until a callback stops the run; the
// output does not depend on the thread count. Throws what the callbacks or the source throw,
// after every thread has ended.
void translate_lines(const Translator& translator, LineSource& lines, const BatchOptions& options,
                     const BatchCallbacks& callbacks);

}  // namespace minimt
