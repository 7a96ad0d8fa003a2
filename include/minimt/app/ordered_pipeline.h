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
// started has ended by then. Rethrows the first exception a stage threw.
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

  std::thread reader([&] {
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
  });

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (;;) {
        std::pair<long long, Item> job;
        {
          std::unique_lock<std::mutex> lock(mutex);
          worker_cv.wait(lock, [&] { return cancelled || !queued.empty() || input_done; });
          if (cancelled || queued.empty()) return;
          job = std::move(queued.front());
          queued.pop_front();
        }
        try {
          stages.work(job.second);
        } catch (...) {
          stop(std::current_exception());
          return;
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          finished.emplace(job.first, std::move(job.second));
        }
        writer_cv.notify_all();
      }
    });

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
  stop(nullptr);  // wakes everyone up; they see `cancelled` and return
  reader.join();
  for (auto& worker : workers) worker.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace minimt
