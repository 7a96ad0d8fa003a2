// minimt serve's endpoints (endpoints.h): each request read and checked, planned against its
// model, queued, and answered with its records when the queue has them; every refusal a JSON
// error naming the field.
#include "serve/endpoints.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/app/run/generation_defaults.h"
#include "minimt/app/run/request_options.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/model/untrusted_json.h"

namespace minimt::serve {
namespace {

constexpr char kHtml[] = "text/html; charset=utf-8";

// The records as the answer's body: one object, or an array of them in order.
std::string records_body(const QueueAnswer& answer, bool many) {
  if (!many) return answer.records.front();
  size_t size = 2;
  for (const std::string& record : answer.records) size += record.size();
  std::string body;
  body.reserve(size + 1);
  body += '[';
  for (size_t i = 0; i < answer.records.size(); ++i) {
    if (i) body += ',';
    const std::string& record = answer.records[i];
    body.append(record, 0, record.size() - 1);  // without its '\n'
  }
  return body + "]\n";
}

// 503: the queue is full, or its answers hold all they may; the client tries again.
HttpAnswer busy(const std::string& message) {
  HttpAnswer answer = error_answer(503, message, "");
  answer.headers.emplace_back("Retry-After", "1");
  return answer;
}

// The choices of a request for the live page (live.js's form), written into its answer so that
// the form comes back as it was sent.
nlohmann::json live_request(const RecordSettings& record) {
  return {{"dump_scores", record.dump_scores},
          {"dump_norms", record.dump_norms},
          {"logit_lens", record.logit_lens},
          {"rollout", record.rollout},
          {"attribute", !record.attribute.empty()},
          {"ablate_heads", record.mask_heads.value_or("")}};
}

HttpAnswer content(std::string body, const char* type) {
  HttpAnswer answer;
  answer.body = std::move(body);
  answer.content_type = type;
  return answer;
}

class Endpoints {
 public:
  Endpoints(const ServedModels& models, const ServeLimits& limits, const Request& base,
            ServingQueue& queue)
      : models_(models),
        limits_(limits),
        base_(base),
        queue_(queue),
        page_(empty_page()),
        options_(options_json()) {}

  void handle(const HttpRequest& in, const Respond& respond) const;

 private:
  void lines(const HttpRequest& in, const Respond& respond, Endpoint endpoint) const;
  std::string empty_page() const;
  std::string models_json() const;
  static std::string options_json();
  std::shared_ptr<const Model> model_for(const std::string& compute_type) const;

  const ServedModels& models_;
  const ServeLimits& limits_;
  const Request& base_;
  ServingQueue& queue_;
  const std::string page_;     // GET /: the same for every request
  const std::string options_;  // GET /v1/options: request_options.h's table
};

void Endpoints::handle(const HttpRequest& in, const Respond& respond) const {
  static const std::map<std::string, Endpoint> posts = {{"/v1/translate", Endpoint::kTranslate},
                                                        {"/v1/score", Endpoint::kScore},
                                                        {"/v1/attention", Endpoint::kAttention}};
  const bool get = in.method == "GET" || in.method == "HEAD";
  if (const auto post = posts.find(in.path); post != posts.end()) {
    if (in.method == "POST") return lines(in, respond, post->second);
  } else if (in.path == "/" || in.path == "/v1/health" || in.path == "/v1/models" ||
             in.path == "/v1/options") {
    if (in.path == "/" && get) return respond(content(page_, kHtml));
    if (in.path == "/v1/models" && get) return respond(content(models_json(), "application/json"));
    if (in.path == "/v1/options" && get) return respond(content(options_, "application/json"));
    if (get)
      return respond(content(
          "{\"status\":\"ok\",\"queued_lines\":" + std::to_string(queue_.queued_lines()) + "}\n",
          "application/json"));
  } else {
    return respond(error_answer(404,
                                "no endpoint " + in.method + " " + printable(in.path) +
                                    " (POST /v1/translate, /v1/score, /v1/attention; GET /, "
                                    "/v1/health, /v1/models, /v1/options)",
                                ""));
  }
  const char* allowed = posts.count(in.path) ? "POST" : "GET, HEAD";
  HttpAnswer refused = error_answer(
      405, "no endpoint " + in.method + " " + in.path + " (it takes " + allowed + ")", "");
  refused.headers.emplace_back("Allow", allowed);
  respond(std::move(refused));
}

std::shared_ptr<const Model> Endpoints::model_for(const std::string& compute_type) const {
  const std::string& wanted = compute_type.empty() ? models_.default_compute_type : compute_type;
  const auto found = models_.by_compute_type.find(wanted);
  if (found != models_.by_compute_type.end()) return found->second;
  std::string loaded;
  for (const auto& [type, model] : models_.by_compute_type)
    loaded += (loaded.empty() ? "" : ", ") + type;
  throw HttpError(400, "compute_type",
                  "compute_type: '" + printable(compute_type) +
                      "' is not loaded (this server has " + loaded +
                      "; see minimt serve --compute-type)");
}

void Endpoints::lines(const HttpRequest& in, const Respond& respond, Endpoint endpoint) const {
  try {  // the client's part: nothing is queued unless all of it is right
    ServeInput input = read_serve_input(in.body, endpoint, base_, limits_);
    const bool many = input.many;
    const bool page = input.request.record.view;
    const std::shared_ptr<const Model> model = model_for(input.request.compute_type);
    // The model's generation settings where the body is silent, as translate's command line
    // takes them; a model's max_length past this server's limit stops at the limit.
    apply_generation_defaults(
        input.request, model->config(),
        [&input](const std::string& field) { return input.given.count(field) > 0; },
        FieldSpelling::kJson);
    input.request.search.max_length = std::min(input.request.search.max_length, limits_.max_length);
    const RequestPlan plan = plan_request(input.request, *model, FieldSpelling::kJson);
    ViewOptions view;
    view.live = true;
    if (page) view.live_request = live_request(input.request.record);
    queue_.submit(
        model, plan, std::move(input.lines), view,
        [respond, many, page, endpoint](std::future<QueueAnswer> pending) {
          try {
            QueueAnswer answer = pending.get();
            if (page) return respond(content(std::move(answer.page), kHtml));
            if (endpoint == Endpoint::kAttention)
              return respond(content(std::move(answer.dump), "application/json"));
            respond(content(records_body(answer, many), "application/json"));
          } catch (const AnswerTooLarge& e) {
            respond(error_answer(413, e.what(), "max_answer_bytes"));
          } catch (const QueueRefusal& e) {
            respond(busy(e.what()));
          } catch (const std::exception& e) {
            respond(error_answer(500, std::string("translating failed: ") + e.what(), ""));
          }
        });
  } catch (const HttpError& e) {
    respond(error_answer(e.status(), e.what(), e.field()));
  } catch (const RequestError& e) {
    respond(error_answer(400, e.what(), e.field()));
  } catch (const QueueRefusal& e) {
    respond(busy(e.what()));
  } catch (const Error& e) {  // the dump selection or the alignment against the model
    respond(error_answer(400, e.what(), ""));
  }
}

std::string Endpoints::empty_page() const {
  AttentionDump nothing;  // no sentence yet: the box asks for them
  nothing.model = models_.path;
  ViewOptions view;
  view.live = true;
  std::ostringstream page;
  write_attention_page(nothing, page, view);
  return page.str();
}

std::string Endpoints::models_json() const {
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
                             {"max_length", limits_.max_length},
                             {"max_answer_bytes", queue_.options().max_answer_bytes}}}};
  return answer.dump() + "\n";
}

// The options a body may hold, each with the endpoints that take it and an example.
std::string Endpoints::options_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const RequestOption& option : request_options()) {
    nlohmann::json endpoints = nlohmann::json::array();
    if (serves(option, kForTranslate)) endpoints.push_back("/v1/translate");
    if (serves(option, kForScore)) endpoints.push_back("/v1/score");
    if (serves(option, kForAttention)) endpoints.push_back("/v1/attention");
    if (endpoints.empty()) continue;  // the command line's only (threads, ...)
    list.push_back(
        {{"name", option.name},
         {"alias", option.alias.empty() ? nlohmann::json() : nlohmann::json(option.alias)},
         {"type", option_type_name(option.type)},
         {"endpoints", endpoints},
         {"example", nlohmann::json::parse(option.example)},
         {"help", option_help(option, FieldSpelling::kJson)}});
  }
  return nlohmann::json{{"options", list}}.dump() + "\n";
}

}  // namespace

Handler serve_endpoints(const ServedModels& models, const ServeLimits& limits, const Request& base,
                        ServingQueue& queue) {
  auto endpoints = std::make_shared<Endpoints>(models, limits, base, queue);
  return [endpoints](HttpRequest request, Respond respond) { endpoints->handle(request, respond); };
}

}  // namespace minimt::serve
