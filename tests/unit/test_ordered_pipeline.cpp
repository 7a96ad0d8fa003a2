// run_ordered_pipeline (include/minimt/app/translate/ordered_pipeline.h) on its own: items come
// back in read order whatever the threads and the time each takes, at most `window` of them in
// flight; a failure is reported and what was read before it delivered; and the run ends cleanly,
// every thread joined and every item destroyed, when the writer stops early or a stage throws.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "minimt/app/translate/ordered_pipeline.h"

using minimt::PipelineStages;
using minimt::run_ordered_pipeline;

namespace {

// Counts the items alive, so that a test can see that none is left behind (or destroyed twice).
std::atomic<int> items_alive{0};

struct Item {
  int index = -1;
  long long value = 0;
  std::string error;  // a failure kept in the item, as the batch runner keeps a line's
  Item() { ++items_alive; }
  Item(const Item& other) : index(other.index), value(other.value), error(other.error) {
    ++items_alive;
  }
  Item(Item&& other) noexcept
      : index(other.index), value(other.value), error(std::move(other.error)) {
    ++items_alive;
  }
  Item& operator=(const Item&) = default;
  Item& operator=(Item&&) = default;
  ~Item() { --items_alive; }
};

long long square_plus_one(int index) {
  return static_cast<long long>(index) * index + 1;
}

// Runs f on a thread of its own and waits at most `limit`; a run still going then is a hang,
// which ends this process with a message (its thread cannot be stopped, and a test that
// returned while it runs would leave it reading freed memory).
template <typename F>
void finishes_within(std::chrono::seconds limit, F f) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread runner([&] {
    try {
      f();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  if (finished.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "FAIL: the pipeline did not finish within %lld s (a hang)\n",
                 static_cast<long long>(limit.count()));
    std::_Exit(3);
  }
  runner.join();
  finished.get();  // rethrows what f threw
}

// Reads `count` items numbered from 0; work computes square_plus_one after a random pause of
// up to `pause_us` microseconds (seeded by the item, so the threads finish out of order).
PipelineStages<Item> numbered_stages(int count, int pause_us, std::vector<int>& written) {
  auto next = std::make_shared<int>(0);
  PipelineStages<Item> stages;
  stages.read = [next, count](Item& item, const std::atomic<bool>&) {
    if (*next >= count) return false;
    item.index = (*next)++;
    return true;
  };
  stages.work = [pause_us](Item& item) {
    std::mt19937 rng(static_cast<unsigned>(item.index));
    if (pause_us > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % (pause_us + 1)));
    item.value = square_plus_one(item.index);
  };
  stages.write = [&written](Item& item) {
    if (item.value != square_plus_one(item.index)) throw std::logic_error("item not worked");
    written.push_back(item.index);
    return true;
  };
  return stages;
}

std::vector<int> zero_to(int count) {
  std::vector<int> all(count);
  for (int i = 0; i < count; ++i) all[i] = i;
  return all;
}

}  // namespace

TEST_CASE("ordered pipeline: items come back in read order, whatever the threads", "[pipeline]") {
  for (int threads : {1, 2, 3, 8}) {
    for (int window : {1, threads, 4 * threads}) {
      INFO(threads << " threads, window " << window);
      std::vector<int> written;
      finishes_within(std::chrono::seconds(60), [&] {
        run_ordered_pipeline(threads, window, numbered_stages(300, 300, written));
      });
      CHECK(written == zero_to(300));
      CHECK(items_alive == 0);
    }
  }
}

TEST_CASE("ordered pipeline: at most `window` items between read and written", "[pipeline]") {
  for (int window : {2, 5, 16}) {
    INFO("window " << window);
    std::atomic<int> in_flight{0}, most{0};
    std::vector<int> written;
    PipelineStages<Item> stages = numbered_stages(200, 200, written);
    auto read = stages.read;
    stages.read = [&, read](Item& item, const std::atomic<bool>& cancelled) {
      if (!read(item, cancelled)) return false;
      int now = ++in_flight;
      for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      return true;
    };
    auto write = stages.write;
    stages.write = [&, write](Item& item) {
      --in_flight;
      return write(item);
    };
    finishes_within(std::chrono::seconds(60), [&] { run_ordered_pipeline(4, window, stages); });
    CHECK(written == zero_to(200));
    CHECK(most <= std::max(window, 4));  // the window is never below the thread count
    CHECK(most >= 2);                    // several items were in flight at once
  }
}

TEST_CASE("ordered pipeline: a failure kept in an item is written in its place", "[pipeline]") {
  std::vector<int> written;
  std::vector<std::string> errors;
  PipelineStages<Item> stages = numbered_stages(50, 100, written);
  stages.work = [](Item& item) {
    if (item.index == 17) {
      item.error = "line 18: invalid UTF-8";
      return;
    }
    item.value = square_plus_one(item.index);
  };
  stages.write = [&](Item& item) {
    written.push_back(item.index);
    errors.push_back(item.error);
    return true;
  };
  finishes_within(std::chrono::seconds(60), [&] { run_ordered_pipeline(3, 12, stages); });
  CHECK(written == zero_to(50));
  REQUIRE(errors.size() == 50);
  CHECK(errors[17] == "line 18: invalid UTF-8");
  CHECK(errors[16].empty());
  CHECK(errors[18].empty());
}

TEST_CASE("ordered pipeline: the reader's exception comes after every item read before it",
          "[pipeline]") {
  for (int threads : {1, 4}) {
    INFO(threads << " threads");
    std::vector<int> written;
    PipelineStages<Item> stages = numbered_stages(1000, 100, written);
    auto read = stages.read;
    int reads = 0;
    stages.read = [&, read](Item& item, const std::atomic<bool>& cancelled) {
      if (reads++ == 40) throw std::runtime_error("input: read error at line 41");
      return read(item, cancelled);
    };
    std::string message;
    finishes_within(std::chrono::seconds(60), [&] {
      try {
        run_ordered_pipeline(threads, 8, stages);
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
    });
    CHECK(message == "input: read error at line 41");
    CHECK(written == zero_to(40));
    CHECK(items_alive == 0);
  }
}

TEST_CASE("ordered pipeline: a worker's exception stops the run and is reported", "[pipeline]") {
  for (int threads : {1, 2, 8}) {
    INFO(threads << " threads");
    std::vector<int> written;
    PipelineStages<Item> stages = numbered_stages(500, 50, written);
    auto work = stages.work;
    stages.work = [work](Item& item) {
      if (item.index == 123) throw std::runtime_error("item 123 failed");
      work(item);
    };
    std::string message;
    finishes_within(std::chrono::seconds(60), [&] {
      try {
        run_ordered_pipeline(threads, 4 * threads, stages);
      } catch (const std::runtime_error& e) {
        message = e.what();
      }
    });
    CHECK(message == "item 123 failed");
    // What was written is the items before the failed one, in order: none after it, none twice.
    REQUIRE(written.size() <= 123);
    CHECK(written == zero_to(static_cast<int>(written.size())));
    CHECK(items_alive == 0);
  }
}

TEST_CASE("ordered pipeline: a writer that stops early ends the run", "[pipeline]") {
  for (int threads : {1, 3}) {
    INFO(threads << " threads");
    std::vector<int> written;
    PipelineStages<Item> stages = numbered_stages(100000, 0, written);
    auto write = stages.write;
    stages.write = [&, write](Item& item) { return write(item) && item.index < 9; };
    finishes_within(std::chrono::seconds(60), [&] { run_ordered_pipeline(threads, 8, stages); });
    CHECK(written == zero_to(10));  // the one that said stop is written, nothing after it
    CHECK(items_alive == 0);        // the items read and not written are destroyed, not lost
  }
}

TEST_CASE("ordered pipeline: a reader waiting for input gives up when the writer stops",
          "[pipeline]") {
  std::vector<int> written;
  std::atomic<int> reads{0};
  std::atomic<bool> reader_gave_up{false};
  PipelineStages<Item> stages = numbered_stages(30, 0, written);
  auto read = stages.read;
  // After 30 items the input goes quiet, like a terminal nobody types into: the read waits
  // until the run is cancelled.
  stages.read = [&, read](Item& item, const std::atomic<bool>& cancelled) {
    if (reads++ < 30) return read(item, cancelled);
    while (!cancelled) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    reader_gave_up = true;
    return false;
  };
  auto write = stages.write;
  stages.write = [&, write](Item& item) {
    if (item.index < 29) return write(item);
    while (reads <= 30) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    write(item);
    return false;  // the last answer came while the reader waits for more input: stop
  };
  finishes_within(std::chrono::seconds(60), [&] { run_ordered_pipeline(2, 4, stages); });
  CHECK(written == zero_to(30));
  CHECK(reader_gave_up);
  CHECK(items_alive == 0);
}

TEST_CASE("ordered pipeline: a writer's exception ends the run and is reported", "[pipeline]") {
  std::vector<int> written;
  PipelineStages<Item> stages = numbered_stages(400, 20, written);
  auto write = stages.write;
  stages.write = [&, write](Item& item) {
    if (item.index == 77) throw std::runtime_error("disk full at item 77");
    return write(item);
  };
  std::string message;
  finishes_within(std::chrono::seconds(60), [&] {
    try {
      run_ordered_pipeline(2, 8, stages);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
  });
  CHECK(message == "disk full at item 77");
  CHECK(written == zero_to(77));
  CHECK(items_alive == 0);
}

TEST_CASE("ordered pipeline: no input, and a thread count below 1, still run", "[pipeline]") {
  std::vector<int> written;
  finishes_within(std::chrono::seconds(60), [&] {
    run_ordered_pipeline(0, 0, numbered_stages(0, 0, written));
    run_ordered_pipeline(-3, 1, numbered_stages(25, 0, written));
  });
  CHECK(written == zero_to(25));
  CHECK(items_alive == 0);
}
