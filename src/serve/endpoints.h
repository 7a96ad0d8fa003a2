// minimt serve's HTTP endpoints: JSON in (request_json.h), the records of `minimt translate
// --format jsonl` out, every line through app's ServingQueue.
//   POST /v1/translate  {"text": S} or {"texts": [S...]} and translate's per-request options
//   POST /v1/score      {"source": S, "target": S} or {"sources": [...], "targets": [...]}
//   POST /v1/attention  as translate, with the dump selection; the dump, or with "view": true
//                       the attention page
//   GET  /              the attention page with a box that asks /v1/attention
//   GET  /v1/health, GET /v1/models
// (HEAD as GET, without the body.)
#pragma once

#include <map>
#include <memory>
#include <string>

#include "minimt/app/run/serving_queue.h"
#include "minimt/model/model.h"
#include "serve/http_server.h"
#include "serve/request_json.h"

namespace minimt::serve {

// The models a server holds: one per compute type loaded, by its name (float32, int8, bf16).
struct ServedModels {
  std::string path;  // the model's directory
  std::map<std::string, std::shared_ptr<const Model>> by_compute_type;
  std::string default_compute_type;  // what a request without compute_type gets
};

// The handler of every request (http_server.h); everything given must outlive it.
Handler serve_endpoints(const ServedModels& models, const ServeLimits& limits, const Request& base,
                        ServingQueue& queue);

}  // namespace minimt::serve
