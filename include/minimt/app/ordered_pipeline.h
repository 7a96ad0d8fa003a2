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

// Returns when every item read has been written, or the run was stopped; every thread it
// started has ended by then. Rethrows the first exception a stage threw. Throws
// std::system_error "cannot start thread N of M: REASON" when a thread cannot be started (the
// threads started before it are stopped and joined first).
template <typename Item>
void run_ordered_pipeline(int threads, int window, const PipelineStages<Item>& stages) {
  threads = std::max(threads, 1);
  window = std::max(window, threads);

  std::mutex mutex;
  std::condition_variable reader_cv, worker_cv, writer_cv;
  std::deque<std::pair<long long, Item>> queued;  // read, waiting for a worker
  std::map<long long, Item> finished;             // worked, waiting for their turn
  long long read_count = 0, written = 0;
  bool input_done = false;
  std::atomic<bool> cancelled{false};
  std::exception_ptr error;

  auto stop = [&](std::exception_ptr failure) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure && !error) error = failure;
      cancelled = true;
    }
    reader_cv.notify_all();
    worker_cv.notify_all();
    writer_cv.notify_all();
  };

  auto read_all = [&] {
    std::exception_ptr failure;
    try {
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          reader_cv.wait(lock, [&] { return cancelled || read_count - written < window; });
          if (cancelled) break;
        }
        Item item;
        if (!stages.read(item, cancelled)) break;
        {
          std::lock_guard<std::mutex> lock(mutex);
          queued.emplace_back(read_count++, std::move(item));
        }
        worker_cv.notify_one();
      }
    } catch (...) {
      failure = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (failure && !error) error = failure;
      input_done = true;
    }
    worker_cv.notify_all();
    writer_cv.notify_all();
  };

  auto work_all = [&] {
    try {  // an exception must not leave a thread: work's, or bad_alloc anywhere
      for (;;) {
        std::pair<long long, Item> job;
        {
          std::unique_lock<std::mutex> lock(mutex);
          worker_cv.wait(lock, [&] { return cancelled || !queued.empty() || input_done; });
          if (cancelled || queued.empty()) return;
          job = std::move(queued.front());
          queued.pop_front();
        }
        stages.work(job.second);
        {
          std::lock_guard<std::mutex> lock(mutex);
          finished.emplace(job.first, std::move(job.second));
        }
        writer_cv.notify_all();
      }
    } catch (...) {
      stop(std::current_exception());
    }
  };

  std::thread reader;
  std::vector<std::thread> workers;
  auto join_all = [&] {
    stop(nullptr);  // wakes everyone up; they see `cancelled` and return
    if (reader.joinable()) reader.join();
    for (auto& worker : workers) worker.join();
  };
  try {
    workers.reserve(threads);
    reader = std::thread(read_all);
    for (int t = 0; t < threads; ++t) workers.emplace_back(work_all);
  } catch (const std::system_error& e) {
    // Too many threads for the process's limits: end those started, then say which one failed.
    const size_t started = workers.size() + (reader.joinable() ? 1 : 0);
    join_all();
    throw std::system_error(e.code(), "cannot start thread " + std::to_string(started + 1) +
                                          " of " + std::to_string(threads + 1));
  } catch (...) {
    join_all();
    throw;
  }

  try {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mutex);
        auto ready = [&] { return finished.count(written) > 0; };
        auto all_written = [&] { return input_done && written == read_count; };
        writer_cv.wait(lock, [&] { return cancelled || ready() || all_written(); });
        if (cancelled || !ready()) break;
        auto at = finished.find(written);
        item = std::move(at->second);
        finished.erase(at);
      }
      bool go_on = stages.write(item);
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++written;
      }
      reader_cv.notify_one();
      if (!go_on) break;
    }
  } catch (...) {
    stop(std::current_exception());
  }
  join_all();
  if (error) std::rethrow_exception(error);
}

}  // namespace minimt
