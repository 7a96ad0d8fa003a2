// ServingQueue: the translator behind a server. Many clients' requests wait in one short queue;
// worker threads take lines from the requests whose plans match (same model, same options),
// up to a maximum batch, waiting at most a short time for the batch to fill, and translate them
// together. Each request's records are those run_request (request_run.h) writes for the same
// lines, whatever else shared their batches (a sentence's translation does not depend on the
// others in its batch). It knows nothing of HTTP: a front end plans each request and waits for
// its answer.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "minimt/model/model.h"

namespace minimt {

struct QueueOptions {
  int threads = 1;              // workers, each translating one batch at a time
  int max_batch = 16;           // lines translated together (translate -i's --batch-size)
  double max_wait_ms = 5;       // how long a batch that is not full waits for more lines
  long long max_queued = 4096;  // lines waiting, beyond which submit refuses a request
  // What a request's answer may hold, counted as it is made (each recorded attention number at
  // kHeldBytesPerNumber, the records' text twice: in the records and the dump): past it the
  // request fails with AnswerTooLarge, before its records are written out whole. The requests
  // at work may hold kHeldRequests times as much together; past that one fails with
  // QueueRefusal (busy: try again).
  size_t max_answer_bytes = size_t{64} << 20;
};

// Bytes an answer holds per recorded attention number: 4 as a float, at most 20 as JSON text
// (shortest round trip, a comma; the causal mask's nulls beside decoder rows).
inline constexpr size_t kHeldBytesPerNumber = 24;
inline constexpr size_t kHeldRequests = 4;

// A request whose answer grew past QueueOptions::max_answer_bytes.
class AnswerTooLarge : public Error {
 public:
  using Error::Error;
};

// What a request gets back: one record per line, in order, numbered from 1 within the request
// (the records of `minimt translate --format jsonl` given the same lines as arguments; time_ms
// is the line's share of its batch's wall time, as there), with the notices, the attention dump
// (record.dump_attention) and the page (record.view, written with `page_options`).
struct QueueAnswer {
  std::vector<std::string> records;  // each ends in '\n'
  std::vector<LineNotice> notices;
  std::string dump;
  std::string page;
};

// submit() when the queue is full or closed; the front end says "busy, try again".
class QueueRefusal : public Error {
 public:
  using Error::Error;
};

class ServingQueue {
 public:
  explicit ServingQueue(const QueueOptions& options);
  // Closes the queue and waits for the workers: every accepted request is answered first.
  ~ServingQueue();
  ServingQueue(const ServingQueue&) = delete;
  ServingQueue& operator=(const ServingQueue&) = delete;

  // Queues `lines` (at least one) to run as `plan` says on `model`; the future holds the
  // answer, or what translating threw. Throws QueueRefusal when max_queued lines would be
  // waiting, or after close().
  std::future<QueueAnswer> submit(std::shared_ptr<const Model> model, const RequestPlan& plan,
                                  std::vector<std::string> lines, ViewOptions page_options = {});
  // As submit, but the answer is handed to `ready` instead of waited for: called once, on a
  // worker thread, with a future that holds the answer or what translating threw (a front end
  // with one thread for all its connections must never wait). Throws as submit.
  using AnswerReady = std::function<void(std::future<QueueAnswer>)>;
  void submit(std::shared_ptr<const Model> model, const RequestPlan& plan,
              std::vector<std::string> lines, ViewOptions page_options, AnswerReady ready);
  // Refuses new requests from now on; the queued ones are still answered.
  void close();
  long long queued_lines() const;
  const QueueOptions& options() const { return options_; }

  // The front end's clients that may submit (a server's open connections, each with at most one
  // request unanswered). Once told, the queue starts a batch without waiting whenever every
  // client waits for an answer: no line can join it by waiting. Until then it cannot know.
  void add_client();
  void remove_client();

 private:
  struct Job;
  struct Batch;
  void work();
  bool take_batch(Batch& batch);  // false: closed and nothing left
  void run_batch(Batch& batch);
  bool every_client_waits() const;         // under mutex_
  void answered();                         // one request fewer unanswered
  void enqueue(std::shared_ptr<Job> job);  // submit's part after the job is made
  void deliver(Job& job);                  // to its `ready`, once its promise is kept
  void drop_waiting(Job& job);             // a failed request's lines not yet taken
  // Counts `bytes` more held by `job`: throws AnswerTooLarge or QueueRefusal past the limits.
  void hold(Job& job, size_t bytes);

  const QueueOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::shared_ptr<Job>> jobs_;  // oldest first; each until its last line is taken
  long long queued_ = 0;                   // lines not yet taken
  long long unanswered_ = 0;               // requests submitted and not yet answered
  long long clients_ = -1;                 // add_client() less remove_client(); -1: never told
  std::atomic<size_t> held_bytes_{0};      // what the requests at work hold (max_answer_bytes)
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace minimt
