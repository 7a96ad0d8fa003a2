// minimt serve's endpoints (serve_http.h): each request read and checked, planned against its
// model, queued, and answered with its records; every refusal a JSON error naming the field.
#include "cli/serve_http.h"

#include <httplib.h>

#include <sstream>

#include "cli/serve_connection.h"
#include "minimt/app/attention_view.h"
#include "minimt/base/json_writer.h"

namespace minimt::cli {
namespace {

constexpr char kJson[] = "application/json";

void refuse(httplib::Response& response, int status, const std::string& message,
            const std::string& field) {
  response.status = status;
  response.set_content(error_json(message, field), kJson);
}

// The records as the answer's body: one object, or an array of them in order.
std::string records_body(const QueueAnswer& answer, bool many) {
  if (!many) return answer.records.front();
  std::string body = "[";
  for (size_t i = 0; i < answer.records.size(); ++i) {
    if (i) body += ',';
    const std::string& record = answer.records[i];
    body.append(record, 0, record.size() - 1);  // without its '\n'
  }
  return body + "]\n";
}

class Endpoints {
 public:
  Endpoints(const ServedModels& models, const ServeLimits& limits, const Request& base,
            ServingQueue& queue)
      : models_(models), limits_(limits), base_(base), queue_(queue) {}

  void lines(const httplib::Request& in, httplib::Response& out, Endpoint endpoint) const;
  void page(httplib::Response& out) const;
  void models(httplib::Response& out) const;

 private:
  std::shared_ptr<const Model> model_for(const std::string& compute_type) const;

  const ServedModels& models_;
  const ServeLimits& limits_;
  const Request& base_;
  ServingQueue& queue_;
};

std::shared_ptr<const Model> Endpoints::model_for(const std::string& compute_type) const {
  const std::string& wanted = compute_type.empty() ? models_.default_compute_type : compute_type;
  const auto found = models_.by_compute_type.find(wanted);
  if (found != models_.by_compute_type.end()) return found->second;
  std::string loaded;
  for (const auto& [type, model] : models_.by_compute_type)
    loaded += (loaded.empty() ? "" : ", ") + type;
  throw HttpError(400, "compute_type",
                  "compute_type: '" + compute_type + "' is not loaded (this server has " + loaded +
                      "; see minimt serve --compute-type)");
}

void Endpoints::lines(const httplib::Request& in, httplib::Response& out, Endpoint endpoint) const {
  std::future<QueueAnswer> pending;
  bool many = false, page = false;
  try {  // the client's part: nothing is queued unless all of it is right
    ServeInput input = read_serve_input(in.body, endpoint, base_, limits_);
    many = input.many;
    page = input.request.record.view;
    const std::shared_ptr<const Model> model = model_for(input.request.compute_type);
    const RequestPlan plan = plan_request(input.request, *model, FieldSpelling::kJson);
    ViewOptions view;
    view.live = true;
    pending = queue_.submit(model, plan, std::move(input.lines), view);
  } catch (const HttpError& e) {
    return refuse(out, e.status(), e.what(), e.field());
  } catch (const RequestError& e) {
    return refuse(out, 400, e.what(), e.field());
  } catch (const QueueRefusal& e) {
    out.set_header("Retry-After", "1");
    return refuse(out, 503, e.what(), "");
  } catch (const Error& e) {  // the dump selection or the alignment against the model
    return refuse(out, 400, e.what(), "");
  }
  try {
    const QueueAnswer answer = pending.get();
    if (page)
      out.set_content(answer.page, "text/html; charset=utf-8");
    else if (endpoint == Endpoint::kAttention)
      out.set_content(answer.dump, kJson);
    else
      out.set_content(records_body(answer, many), kJson);
  } catch (const std::exception& e) {
    refuse(out, 500, std::string("translating failed: ") + e.what(), "");
  }
}

void Endpoints::page(httplib::Response& out) const {
  AttentionDump nothing;  // no sentence yet: the box asks for them
  nothing.model = models_.path;
  ViewOptions view;
  view.live = true;
  std::ostringstream page;
  write_attention_page(nothing, page, view);
  out.set_content(page.str(), "text/html; charset=utf-8");
}

void Endpoints::models(httplib::Response& out) const {
  const Model& model = *model_for("");
  nlohmann::json types = nlohmann::json::array();
  for (const auto& entry : models_.by_compute_type) types.push_back(entry.first);
  nlohmann::json answer = {{"model", models_.path},
                           {"compute_types", types},
                           {"default_compute_type", models_.default_compute_type},
                           {"max_positions", model.config().max_positions},
                           {"limits",
                            {{"max_body_bytes", limits_.max_body_bytes},
                             {"max_sentences", limits_.max_sentences},
                             {"max_line_bytes", limits_.max_line_bytes},
                             {"max_length", limits_.max_length}}}};
  out.set_content(answer.dump() + "\n", kJson);
}

}  // namespace

void add_serve_endpoints(httplib::Server& server, const ServedModels& models,
                         const ServeLimits& limits, const Request& base, ServingQueue& queue) {
  auto endpoints = std::make_shared<Endpoints>(models, limits, base, queue);
  auto post = [&](const char* path, Endpoint endpoint) {
    server.Post(path, [endpoints, endpoint](const httplib::Request& in, httplib::Response& out) {
      endpoints->lines(in, out, endpoint);
    });
  };
  post("/v1/translate", Endpoint::kTranslate);
  post("/v1/score", Endpoint::kScore);
  post("/v1/attention", Endpoint::kAttention);
  server.Get(
      "/", [endpoints](const httplib::Request&, httplib::Response& out) { endpoints->page(out); });
  server.Get("/v1/models", [endpoints](const httplib::Request&, httplib::Response& out) {
    endpoints->models(out);
  });
  server.Get("/v1/health", [&queue](const httplib::Request&, httplib::Response& out) {
    out.set_content(
        "{\"status\":\"ok\",\"queued_lines\":" + std::to_string(queue.queued_lines()) + "}\n",
        kJson);
  });
  // What httplib refuses itself (no such path, a body over the limit, a malformed request)
  // gets a JSON error too.
  server.set_error_handler([&limits](const httplib::Request& in, httplib::Response& out) {
    if (!out.body.empty()) return;
    if (const ReadRefusal& refused = ServeServer::read_refusal(); refused.status) {
      out.status = refused.status;  // what httplib saw as a malformed request
      out.set_content(error_json(refused.message, refused.field), kJson);
      return;
    }
    std::string message = "HTTP status " + std::to_string(out.status) + " for " + in.method + " " +
                          in.path + " (a malformed request?)";
    std::string field;
    if (out.status == 404)
      message = "no endpoint " + in.method + " " + in.path +
                " (POST /v1/translate, /v1/score, /v1/attention; GET /, /v1/health, /v1/models)";
    if (out.status == 413) {
      message = "the body is larger than the " + std::to_string(limits.max_body_bytes) +
                " bytes a request may have";
      field = "body";
    }
    out.set_content(error_json(message, field), kJson);
  });
}

}  // namespace minimt::cli
