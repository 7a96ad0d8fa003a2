// minimt serve: the model loaded once, translation, scoring and attention over HTTP for many
// clients (src/serve/), their sentences batched together by app's ServingQueue. SIGTERM or
// SIGINT stops it: no new connection is accepted, every request accepted is answered, exit 0.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/commands.h"
#include "cli/stop_on_signal.h"
#include "minimt/app/io/output_writer.h"
#include "minimt/base/text_input.h"
#include "serve/endpoints.h"

namespace minimt::cli {
namespace {

using serve::ServeLimits;

struct ServeArgs {
  std::string model;
  std::string compute_types;  // comma-separated; the first is the default
  std::string host = "127.0.0.1";
  int port = 8080;
  int threads = 0;
  QueueOptions queue;
  ServeLimits limits;
  int connections = 256;  // HTTP connections open at once
  int timeout = 5;        // seconds to send a request or take an answer, or to sit idle
};

void add_serve_options(CLI::App& command, ServeArgs& args) {
  command.description(
      "translate over HTTP: the model loads once and many clients share it; POST /v1/translate, "
      "/v1/score, /v1/attention (JSON in, translate --format jsonl records out), GET / (the "
      "attention page with a box to type sentences in), /v1/health, /v1/models; see "
      "docs/serving.md");
  add_model_option(command, args.model);
  command
      .add_option("--compute-type", args.compute_types,
                  "the compute types to load, comma-separated (float32, int8, bf16), each a copy "
                  "of the model; requests choose one with compute_type, the first is the default "
                  "(default: the model file's)")
      ->type_name("TYPE[,TYPE...]");
  command.add_option("--host", args.host, "address to listen on (loopback: see docs/security.md)")
      ->capture_default_str();
  command.add_option("--port", args.port, "port to listen on; 0: a free one (printed at start)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  command.add_option("--threads", args.threads, "translating threads; 0: one per core")
      ->check(CLI::Range(0, request_limits::kMaxThreads))
      ->capture_default_str();
  command.add_option("--max-batch", args.queue.max_batch, "sentences translated together")
      ->check(CLI::Range(1, request_limits::kMaxBatchSize))
      ->capture_default_str();
  command
      .add_option("--max-wait-ms", args.queue.max_wait_ms,
                  "how long a batch that is not full waits for more sentences")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  command
      .add_option("--max-queued", args.queue.max_queued,
                  "sentences waiting, beyond which a request is refused (503, try again)")
      ->check(CLI::Range(1LL, 1LL << 30))
      ->capture_default_str();
  command.add_option("--max-body-bytes", args.limits.max_body_bytes, "largest request body (413)")
      ->check(CLI::Range(size_t{64}, size_t{1} << 30))
      ->capture_default_str();
  command
      .add_option("--max-sentences", args.limits.max_sentences,
                  "most sentences in one request (413)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  args.limits.max_line_bytes = kMaxLineBytes;
  command
      .add_option("--max-line-bytes", args.limits.max_line_bytes,
                  "longest sentence in bytes (413; translate cuts its lines there)")
      ->check(CLI::Range(size_t{1}, kMaxLineBytes))
      ->capture_default_str();
  command
      .add_option("--max-length", args.limits.max_length,
                  "most output tokens a request may ask for (max_length), and its default")
      ->check(CLI::Range(1, request_limits::kMaxLength))
      ->capture_default_str();
  command
      .add_option("--max-answer-bytes", args.queue.max_answer_bytes,
                  "largest answer a request may get, counted as it is made (413 once past it; "
                  "the requests at work may hold four times as much together, then 503)")
      ->check(CLI::Range(size_t{1} << 16, size_t{1} << 34))
      ->capture_default_str();
  command
      .add_option("--connections", args.connections,
                  "HTTP connections open at once; when all are taken, the one nearest its "
                  "--timeout that is still reading a request (or idle) is closed for a new one")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  command
      .add_option("--timeout", args.timeout,
                  "seconds a client has to send a whole request or take an answer, and a "
                  "keep-alive connection may stay idle")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
}

// Each connection is a descriptor: the soft limit raised to what --connections needs (within
// the hard limit, which an administrator sets).
void raise_descriptor_limit(size_t connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(connections) + 64);
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = wanted;
  setrlimit(RLIMIT_NOFILE, &limit);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> words;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');) words.push_back(word);
  if (words.empty()) words.push_back("");
  return words;
}

int run_serve(ServeArgs& args) {
  ignore_sigpipe();  // a client gone while it is answered must not end the server
  serve::ServedModels models;
  models.path = resolve_model_dir(args.model);
  for (const std::string& type : split_commas(args.compute_types)) {
    std::shared_ptr<const Model> model = load_model(args.model, type);
    const std::string name = to_string(model->compute_type());
    if (models.default_compute_type.empty()) models.default_compute_type = name;
    models.by_compute_type[name] = std::move(model);
  }
  Request base;
  base.model = models.path;
  base.threads = args.threads;
  args.queue.threads = request_threads(base);

  serve::ConnectionLimits connection_limits;
  connection_limits.timeout_seconds = args.timeout;
  connection_limits.body_bytes = args.limits.max_body_bytes;
  connection_limits.connections = static_cast<size_t>(args.connections);
  raise_descriptor_limit(connection_limits.connections);
  StopOnSignal stop;
  ServingQueue queue(args.queue);
  serve::HttpServer server(connection_limits,
                           serve::serve_endpoints(models, args.limits, base, queue),
                           [&queue](int change) {
                             if (change > 0)
                               queue.add_client();
                             else
                               queue.remove_client();
                           });
  stop.stops(&server);
  struct Forget {  // however run() ends
    StopOnSignal& stop;
    ~Forget() { stop.stops(nullptr); }
  } forget{stop};
  const int port = server.listen(args.host, args.port);
  fprintf(stderr, "minimt serve: listening on http://%s:%d/ (model %s, %d threads)\n",
          args.host.c_str(), port, models.path.c_str(), args.queue.threads);
  server.run();
  queue.close();  // every request accepted has been answered: run() waited for them
  fprintf(stderr, "minimt serve: stopped\n");
  return 0;
}

}  // namespace

Command add_serve(CLI::App& app) {
  return add_command<ServeArgs>(app, "serve", add_serve_options, run_serve);
}

}  // namespace minimt::cli
