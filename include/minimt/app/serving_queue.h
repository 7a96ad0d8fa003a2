// ServingQueue: the translator behind a server. Many clients' requests wait in one short queue;
// worker threads take lines from the requests whose plans match (same model, same options),
// up to a maximum batch, waiting at most a short time for the batch to fill, and translate them
// together. Each request's records are those run_request (request_run.h) writes for the same
// lines, whatever else shared their batches (a sentence's translation does not depend on the
// others in its batch). It knows nothing of HTTP: a front end plans each request and waits for
// its answer.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "minimt/app/request_plan.h"
#include "minimt/app/request_run.h"
#include "minimt/model/model.h"

namespace minimt {

struct QueueOptions {
  int threads = 1;              // workers, each translating one batch at a time
  int max_batch = 16;           // lines translated together (translate -i's --batch-size)
  double max_wait_ms = 5;       // how long a batch that is not full waits for more lines
  long long max_queued = 4096;  // lines waiting, beyond which submit refuses a request
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
  static void deliver(Job& job);           // to its `ready`, once its promise is kept

  const QueueOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::shared_ptr<Job>> jobs_;  // oldest first; each until its last line is taken
  long long queued_ = 0;                   // lines not yet taken
  long long unanswered_ = 0;               // requests submitted and not yet answered
  long long clients_ = -1;                 // add_client() less remove_client(); -1: never told
  bool closed_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace minimt
