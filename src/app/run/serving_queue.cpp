// ServingQueue (serving_queue.h): a queue of clients' requests, batched across requests whose
// translator options match, each request's records made as run_request makes them.
#include "minimt/app/run/serving_queue.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>

#include "app/run/answer_bytes.h"
#include "app/run/request_records.h"

namespace minimt {
namespace {

using Clock = std::chrono::steady_clock;

// The translator options two requests must share to be translated in one batch, as text.
std::string batch_key(const Model& model, const TranslateOptions& t) {
  std::ostringstream key;
  key << &model << '|' << t.max_length << '|' << t.record_attention << '|' << t.beam_size << '|'
      << t.n_best << '|' << t.keep_n_best << '|' << t.record_n_best << '|' << t.record_cross_only
      << '|' << t.length_penalty << '|' << t.alternatives << '|' << static_cast<int>(t.columns)
      << '|' << (t.head_mask ? t.head_mask->to_string() : "") << '|' << t.prefix.size() << ':'
      << t.prefix << '|' << t.attribution.ig_steps << '|'
      << static_cast<int>(t.attribution.ig_rule);
  for (AttributionMethod method : t.attribution.methods) key << ',' << static_cast<int>(method);
  return key.str();
}

// The records of one request, gathered as its run writes them.
class GatheringSink : public RecordSink {
 public:
  explicit GatheringSink(QueueAnswer& answer) : answer_(answer) {}
  void notice(const LineNotice& notice) override { answer_.notices.push_back(notice); }
  bool write(const std::string& record) override {
    answer_.records.push_back(record);
    return true;
  }
  bool batch_written(long long) override { return true; }

 private:
  QueueAnswer& answer_;
};

}  // namespace

// One client's request: its lines, and their translations and records as batches finish them.
struct ServingQueue::Job {
  Job(std::shared_ptr<const Model> model_in, const RequestPlan& plan_in,
      std::vector<std::string> lines_in, ViewOptions page_options)
      : model(std::move(model_in)),
        plan(plan_in),
        key(batch_key(*model, plan.batch.translate)),
        alone(plan.batch.translate.sampling.enabled),
        lines(std::move(lines_in)),
        translations(lines.size()),
        records(lines.size()),
        sink(answer),
        run(*model, plan, sink, {&dump, &page}, std::move(page_options)) {}

  const std::shared_ptr<const Model> model;
  const RequestPlan plan;
  const std::string key;
  // Sampling seeds each line by its number in the batch: such a request's lines share batches
  // with no other request's, so that they keep their own numbers.
  const bool alone;
  const std::vector<std::string> lines;
  Clock::time_point queued = Clock::now();
  size_t taken = 0;  // lines handed to batches (under the queue's mutex)

  std::mutex mutex;  // the rest
  std::vector<Translation> translations;
  std::vector<std::string> records;
  size_t done = 0;
  bool failed = false;
  std::promise<QueueAnswer> promise;
  AnswerReady ready;                   // set: the answer goes there, not to a waiting client
  std::future<QueueAnswer> for_ready;  // the promise's future, for `ready`
  // Bytes its answer holds so far (hold()), counted in the queue's total until it goes.
  std::atomic<size_t> held{0};
  std::atomic<size_t>* held_total = nullptr;
  ~Job() {
    if (held_total) *held_total -= held;
  }
  QueueAnswer answer;
  GatheringSink sink;
  std::ostringstream dump, page;
  RequestRun run;
};

// Lines of one or more jobs with the same key, translated together: [begin, end) of each job.
struct ServingQueue::Batch {
  struct Slice {
    std::shared_ptr<Job> job;
    size_t begin = 0, end = 0;
  };
  std::vector<Slice> slices;
  size_t size() const {
    size_t n = 0;
    for (const Slice& s : slices) n += s.end - s.begin;
    return n;
  }
};

ServingQueue::ServingQueue(const QueueOptions& options) : options_(options) {
  for (int i = 0; i < std::max(options.threads, 1); ++i) workers_.emplace_back([this] { work(); });
}

ServingQueue::~ServingQueue() {
  close();
  for (std::thread& worker : workers_) worker.join();
}

void ServingQueue::submit(std::shared_ptr<const Model> model, const RequestPlan& plan,
                          std::vector<std::string> lines, ViewOptions page_options,
                          AnswerReady ready) {
  if (lines.empty()) throw Error("ServingQueue::submit: a request without lines");
  auto job =
      std::make_shared<Job>(std::move(model), plan, std::move(lines), std::move(page_options));
  job->ready = std::move(ready);
  job->for_ready = job->promise.get_future();
  enqueue(std::move(job));
}

std::future<QueueAnswer> ServingQueue::submit(std::shared_ptr<const Model> model,
                                              const RequestPlan& plan,
                                              std::vector<std::string> lines,
                                              ViewOptions page_options) {
  if (lines.empty()) throw Error("ServingQueue::submit: a request without lines");
  auto job =
      std::make_shared<Job>(std::move(model), plan, std::move(lines), std::move(page_options));
  std::future<QueueAnswer> answer = job->promise.get_future();
  enqueue(std::move(job));
  return answer;
}

void ServingQueue::deliver(Job& job) {
  if (job.ready) job.ready(std::move(job.for_ready));
}

void ServingQueue::hold(Job& job, size_t bytes) {
  const size_t held = job.held += bytes;
  const size_t held_bytes = held_bytes_ += bytes;
  const size_t most = options_.max_answer_bytes;
  if (held > most)
    throw AnswerTooLarge("the answer grew past " + std::to_string(most) +
                         " bytes (--max-answer-bytes) after " + std::to_string(job.done) + " of " +
                         std::to_string(job.lines.size()) +
                         " sentences: ask for fewer sentences, a lower max_length, or less of "
                         "the attention (dump_types, dump_layers, dump_heads)");
  if (held_bytes > most * kHeldRequests)
    throw QueueRefusal("the requests at work hold " + std::to_string(held_bytes) +
                       " bytes of answers, the most this server keeps: try again shortly");
}

void ServingQueue::enqueue(std::shared_ptr<Job> job) {
  job->held_total = &held_bytes_;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) throw QueueRefusal("the server is shutting down");
    const long long count = static_cast<long long>(job->lines.size());
    if (queued_ > 0 && queued_ + count > options_.max_queued)
      throw QueueRefusal("the queue is full (" + std::to_string(queued_) +
                         " lines waiting): try again shortly");
    queued_ += count;
    ++unanswered_;
    jobs_.push_back(std::move(job));
    // Wake the workers only when one may start a batch: a worker waits for the first job, or
    // for a full batch, every client waiting or its deadline (one wake-up per line cost as
    // much as the HTTP work of the line).
    wake = jobs_.size() == 1 || queued_ >= options_.max_batch || every_client_waits();
  }
  if (wake) arrived_.notify_all();
}

void ServingQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  arrived_.notify_all();
}

long long ServingQueue::queued_lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_;
}

void ServingQueue::add_client() {
  std::lock_guard<std::mutex> lock(mutex_);
  clients_ = std::max(clients_, 0LL) + 1;
}

void ServingQueue::remove_client() {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    clients_ = std::max(clients_ - 1, 0LL);
    wake = !jobs_.empty() && every_client_waits();
  }
  if (wake) arrived_.notify_all();
}

bool ServingQueue::every_client_waits() const {
  return clients_ >= 0 && unanswered_ >= clients_;
}

bool ServingQueue::take_batch(Batch& batch) {
  const size_t most = static_cast<size_t>(std::max(options_.max_batch, 1));
  std::unique_lock<std::mutex> lock(mutex_);
  // Another worker may take the lines this one waited for: then it looks again.
  while (batch.slices.empty()) {
    arrived_.wait(lock, [&] { return closed_ || !jobs_.empty(); });
    if (jobs_.empty()) return false;
    // The oldest request decides the options; requests with the same key may join it until
    // the batch is full or the oldest has waited max_wait_ms.
    const std::shared_ptr<Job> first = jobs_.front();
    const auto deadline =
        first->queued + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double, std::milli>(options_.max_wait_ms));
    auto joins = [&](const Job& job) {
      return job.key == first->key && (first->alone ? &job == first.get() : !job.alone);
    };
    auto waiting = [&] {
      size_t n = 0;
      for (const auto& job : jobs_)
        if (joins(*job)) n += job->lines.size() - job->taken;
      return n;
    };
    while (!closed_ && !first->alone && waiting() < most && !every_client_waits() &&
           arrived_.wait_until(lock, deadline) != std::cv_status::timeout) {
    }
    size_t room = most;
    for (auto it = jobs_.begin(); it != jobs_.end() && room > 0;) {
      Job& job = **it;
      if (!joins(job)) {
        ++it;
        continue;
      }
      const size_t count = std::min(room, job.lines.size() - job.taken);
      batch.slices.push_back({*it, job.taken, job.taken + count});
      job.taken += count;
      room -= count;
      queued_ -= static_cast<long long>(count);
      it = job.taken == job.lines.size() ? jobs_.erase(it) : std::next(it);
    }
  }
  // Lines left (another key, or more than a batch): another worker may start on them.
  if (!jobs_.empty()) arrived_.notify_all();
  return true;
}

void ServingQueue::work() {
  for (;;) {
    Batch batch;
    if (!take_batch(batch)) return;
    run_batch(batch);
  }
}

void ServingQueue::drop_waiting(Job& job) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = std::find_if(jobs_.begin(), jobs_.end(), [&](const std::shared_ptr<Job>& queued) {
    return queued.get() == &job;
  });
  if (it == jobs_.end()) return;
  queued_ -= static_cast<long long>(job.lines.size() - job.taken);
  job.taken = job.lines.size();
  jobs_.erase(it);
}

void ServingQueue::run_batch(Batch& batch) {
  // A request that failed since its lines were taken (its answer grew too large) is not
  // translated further: its slices leave the batch.
  batch.slices.erase(std::remove_if(batch.slices.begin(), batch.slices.end(),
                                    [](const Batch::Slice& s) {
                                      std::lock_guard<std::mutex> lock(s.job->mutex);
                                      return s.job->failed;
                                    }),
                     batch.slices.end());
  if (batch.slices.empty()) return;
  const Job& first = *batch.slices.front().job;
  std::vector<std::string> lines;
  for (const Batch::Slice& s : batch.slices)
    lines.insert(lines.end(), s.job->lines.begin() + s.begin, s.job->lines.begin() + s.end);
  TranslateOptions options = first.plan.batch.translate;
  options.first_line = static_cast<long long>(batch.slices.front().begin) + 1;  // only alone
  std::vector<Translation> translations;
  std::exception_ptr failure;
  const auto start = Clock::now();
  try {
    translations = Translator(first.model).translate(lines, options);
  } catch (...) {
    failure = std::current_exception();
  }
  const std::chrono::duration<double, std::milli> elapsed = Clock::now() - start;
  const double per_line = elapsed.count() / static_cast<double>(lines.size());

  size_t next = 0;  // the batch's translation of the slice's first line
  for (const Batch::Slice& s : batch.slices) {
    Job& job = *s.job;
    const size_t count = s.end - s.begin;
    // The slice as its own LineBatch, so that the request's run makes its records.
    LineBatch slice;
    slice.first_line = static_cast<long long>(s.begin) + 1;
    slice.lines.resize(count);
    slice.milliseconds = per_line * static_cast<double>(count);
    std::exception_ptr slice_failure = failure;  // the batch's, or this request's own
    bool skip = false;                           // the request failed already
    {
      std::lock_guard<std::mutex> lock(job.mutex);
      skip = job.failed;
    }
    if (!slice_failure && !skip) {
      slice.translations.assign(std::make_move_iterator(translations.begin() + next),
                                std::make_move_iterator(translations.begin() + next + count));
      try {
        job.run.render(slice);
        hold(job, held_by(slice, job.plan));
      } catch (...) {
        slice_failure = std::current_exception();
      }
    }
    next += count;
    std::lock_guard<std::mutex> lock(job.mutex);
    if (job.failed) continue;
    if (slice_failure) {
      job.failed = true;
      drop_waiting(job);  // its lines still queued are never translated
      answered();
      job.promise.set_exception(slice_failure);
      deliver(job);
      continue;
    }
    for (size_t i = 0; i < count; ++i) {
      job.translations[s.begin + i] = std::move(slice.translations[i]);
      job.records[s.begin + i] = std::move(slice.records[i]);
    }
    job.done += count;
    if (job.done < job.lines.size()) continue;
    // The last slice: the whole request through its run, in order, as run_request writes it.
    std::exception_ptr finishing;
    try {
      LineBatch all;
      all.first_line = 1;
      all.translations = std::move(job.translations);
      all.records = std::move(job.records);
      job.run.write(all);
      job.run.finish();
      job.answer.dump = job.dump.str();
      job.answer.page = job.page.str();
    } catch (...) {
      finishing = std::current_exception();
    }
    answered();  // before the client hears: it may send its next request at once
    if (finishing)
      job.promise.set_exception(finishing);
    else
      job.promise.set_value(std::move(job.answer));
    deliver(job);
  }
}

void ServingQueue::answered() {
  std::lock_guard<std::mutex> lock(mutex_);
  --unanswered_;
}

}  // namespace minimt
