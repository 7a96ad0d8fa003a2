// ServingQueue (app/run/serving_queue.h) on the hand model: each request's records are those
// run_request writes for the same lines (the spec: the same as translate's, whatever shared the
// batch), requests whose options match share a batch and others do not, a full or closed queue
// refuses, and close() still answers what was accepted.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>

#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "minimt/app/run/serving_queue.h"
#include "test_support.h"

using minimt::test::fixture_path;
using nlohmann::json;
using namespace minimt;

namespace {

std::shared_ptr<const Model> hand_model() {
  static const std::shared_ptr<const Model> model = Model::load(fixture_path("hand-model"));
  return model;
}

std::string without_time(const std::string& record) {
  static const std::regex time(",\"time_ms\":[0-9.]+");
  return std::regex_replace(record, time, "");
}

struct KeepingSink : RecordSink {
  std::vector<std::string> records;
  void notice(const LineNotice&) override {}
  bool write(const std::string& record) override {
    records.push_back(without_time(record));
    return true;
  }
  bool batch_written(long long) override { return true; }
};

// run_request's records for `lines`, time_ms removed.
std::vector<std::string> alone(const RequestPlan& plan, std::vector<std::string> lines) {
  MemoryLines source(std::move(lines));
  KeepingSink sink;
  run_request(hand_model(), plan, source, sink, {});
  return sink.records;
}

std::vector<std::string> without_times(std::vector<std::string> records) {
  for (std::string& record : records) record = without_time(record);
  return records;
}

RequestPlan jsonl_plan(int beam_size = 1, int n_best = 1) {
  Request request;
  request.format = OutputFormat::kJsonl;
  request.search.beam_size = beam_size;
  request.search.n_best = n_best;
  return plan_request(request, *hand_model());
}

}  // namespace

TEST_CASE("ServingQueue: each request's records are run_request's, whatever shared its batches",
          "[serving]") {
  QueueOptions options;
  options.threads = 2;
  options.max_batch = 3;  // requests split across batches and share them
  ServingQueue queue(options);
  const std::vector<std::vector<std::string>> lines = {
      {"a b", "b a c", "", "c"}, {"\xff", "a"}, {"c b a", "a a b", "b"}, {"a c"}};
  const std::vector<RequestPlan> plans = {jsonl_plan(), jsonl_plan(2, 2), jsonl_plan(),
                                          jsonl_plan(2, 2)};
  std::vector<std::future<QueueAnswer>> answers;
  for (size_t i = 0; i < lines.size(); ++i)
    answers.push_back(queue.submit(hand_model(), plans[i], lines[i]));
  for (size_t i = 0; i < lines.size(); ++i) {
    const QueueAnswer answer = answers[i].get();
    CHECK(without_times(answer.records) == alone(plans[i], lines[i]));
    CHECK(json::parse(answer.records.back())["line"] == lines[i].size());  // numbered per request
  }
}

TEST_CASE("ServingQueue: matching requests share a batch, others wait for their own", "[serving]") {
  QueueOptions options;
  options.threads = 1;
  options.max_batch = 4;
  options.max_wait_ms = 60000;  // only a full batch (or close) starts one
  ServingQueue queue(options);
  const auto start = std::chrono::steady_clock::now();
  auto first = queue.submit(hand_model(), jsonl_plan(), {"a b", "c"});
  auto beam = queue.submit(hand_model(), jsonl_plan(2), {"b a"});
  auto second = queue.submit(hand_model(), jsonl_plan(), {"b", "a c"});
  const QueueAnswer one = first.get(), two = second.get();  // 4 greedy lines: a full batch
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  // One batch: its time shared equally among its 4 lines, so every record says the same.
  const std::string time = json::parse(one.records[0])["time_ms"].dump();
  for (const auto& record : {one.records[1], two.records[0], two.records[1]})
    CHECK(json::parse(record)["time_ms"].dump() == time);
  CHECK(beam.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
  CHECK(queue.queued_lines() == 1);
  queue.close();  // the beam request alone can never fill a batch: close starts it
  CHECK(without_times(beam.get().records) == alone(jsonl_plan(2), {"b a"}));
}

TEST_CASE("ServingQueue: a full queue and a closed one refuse; accepted requests are answered",
          "[serving]") {
  QueueOptions options;
  options.threads = 1;
  options.max_batch = 8;
  options.max_wait_ms = 60000;
  options.max_queued = 4;
  ServingQueue queue(options);
  auto accepted = queue.submit(hand_model(), jsonl_plan(), {"a", "b", "c"});
  CHECK_THROWS_AS(queue.submit(hand_model(), jsonl_plan(), {"a", "b"}), QueueRefusal);
  auto fits = queue.submit(hand_model(), jsonl_plan(), {"a b"});  // 4 lines waiting: the limit
  queue.close();
  CHECK_THROWS_AS(queue.submit(hand_model(), jsonl_plan(), {"a"}), QueueRefusal);
  CHECK(without_times(accepted.get().records) == alone(jsonl_plan(), {"a", "b", "c"}));
  CHECK(without_times(fits.get().records) == alone(jsonl_plan(), {"a b"}));
}
