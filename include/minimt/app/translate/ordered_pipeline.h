// run_ordered_pipeline: read work items on one thread, process them on several, and hand them
// back on the calling thread strictly in the order they were read, each as soon as it and every
// earlier item are done. At most `window` items are between read and written at any time, so
// memory stays flat however long the input is.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace minimt {

template <typename Item>
struct PipelineStages {
  // Reader thread. Fills the next item; false at the end of input. `cancelled` is set when the
  // run stops early: a read that waits for input should check it and give up. An exception
  // ends the input: the items read before it are still processed and written, then it is
  // rethrown by run_ordered_pipeline.
  std::function<bool(Item&, const std::atomic<bool>& cancelled)> read;
  // Worker threads, concurrently on different items. An exception stops the run at once.
  std::function<void(Item&)> work;
  // Calling thread, in read order. Returning false stops the run (the reader and workers stop,
  // items not written yet are dropped).
  std::function<bool(Item&)> write;
};

// The state the reader, the workers and the writer (the calling thread) share, and each one's
// loop. run_ordered_pipeline below is the way to use it.
template <typename Item>
class OrderedPipeline {
 public:
  OrderedPipeline(int threads, int window, const PipelineStages<Item>& stages)
      : threads_(std::max(threads, 1)), window_(std::max(window, threads_)), stages_(stages) {}

  void run() {
    start_threads();
    write_all();
    join_all();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  const int threads_, window_;
  const PipelineStages<Item>& stages_;
  std::mutex mutex_;
  std::condition_variable reader_cv_, worker_cv_, writer_cv_;
  std::deque<std::pair<long long, Item>> queued_;  // read, waiting for a worker
  std::map<long long, Item> finished_;             // worked, waiting for their turn
  long long read_count_ = 0, written_ = 0;
  bool input_done_ = false;
  std::atomic<bool> cancelled_{false};
  std::exception_ptr error_;
  std::thread reader_;
  std::vector<std::thread> workers_;

  void stop(std::exception_ptr failure) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure && !error_) error_ = failure;
      cancelled_ = true;
    }
    reader_cv_.notify_all();
    worker_cv_.notify_all();
    writer_cv_.notify_all();
  }

  void read_all() {
    std::exception_ptr failure;
    try {
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          reader_cv_.wait(lock, [&] { return cancelled_ || read_count_ - written_ < window_; });
          if (cancelled_) break;
        }
        Item item;
        if (!stages_.read(item, cancelled_)) break;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          queued_.emplace_back(read_count_++, std::move(item));
        }
        worker_cv_.notify_one();
      }
    } catch (...) {
      failure = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure && !error_) error_ = failure;
      input_done_ = true;
    }
    worker_cv_.notify_all();
    writer_cv_.notify_all();
  }

  void work_all() {
    try {  // an exception must not leave a thread: work's, or bad_alloc anywhere
      for (;;) {
        std::pair<long long, Item> job;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          worker_cv_.wait(lock, [&] { return cancelled_ || !queued_.empty() || input_done_; });
          if (cancelled_ || queued_.empty()) return;
          job = std::move(queued_.front());
          queued_.pop_front();
        }
        stages_.work(job.second);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          finished_.emplace(job.first, std::move(job.second));
        }
        writer_cv_.notify_all();
      }
    } catch (...) {
      stop(std::current_exception());
    }
  }

  // The items in read order, on the calling thread.
  void write_all() {
    try {
      for (;;) {
        Item item;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          auto ready = [&] { return finished_.count(written_) > 0; };
          auto all_written = [&] { return input_done_ && written_ == read_count_; };
          writer_cv_.wait(lock, [&] { return cancelled_ || ready() || all_written(); });
          if (cancelled_ || !ready()) break;
          auto at = finished_.find(written_);
          item = std::move(at->second);
          finished_.erase(at);
        }
        bool go_on = stages_.write(item);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          ++written_;
        }
        reader_cv_.notify_one();
        if (!go_on) break;
      }
    } catch (...) {
      stop(std::current_exception());
    }
  }

  void start_threads() {
    try {
      workers_.reserve(threads_);
      reader_ = std::thread([this] { read_all(); });
      for (int t = 0; t < threads_; ++t) workers_.emplace_back([this] { work_all(); });
    } catch (const std::system_error& e) {
      // Too many threads for the process's limits: end those started, then say which one failed.
      const size_t started = workers_.size() + (reader_.joinable() ? 1 : 0);
      join_all();
      throw std::system_error(e.code(), "cannot start thread " + std::to_string(started + 1) +
                                            " of " + std::to_string(threads_ + 1));
    } catch (...) {
      join_all();
      throw;
    }
  }

  void join_all() {
    stop(nullptr);  // wakes everyone up; they see `cancelled_` and return
    if (reader_.joinable()) reader_.join();
    for (auto& worker : workers_) worker.join();
  }
};

// Returns when every item read has been written, or the run was stopped; every thread it
// started has ended by then. Rethrows the first exception a stage threw. Throws
// std::system_error "cannot start thread N of M: REASON" when a thread cannot be started (the
// threads started before it are stopped and joined first).
template <typename Item>
void run_ordered_pipeline(int threads, int window, const PipelineStages<Item>& stages) {
  OrderedPipeline<Item>(threads, window, stages).run();
}

}  // namespace minimt
