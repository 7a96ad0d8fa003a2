// minimt serve's request bodies into app's Request (request_json.h).
#include "serve/request_json.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "minimt/app/run/request_options.h"
#include "minimt/base/text_input.h"
#include "minimt/model/json_dom_builder.h"
#include "minimt/model/untrusted_json.h"

namespace minimt::serve {
namespace {

using nlohmann::json;

HttpError bad(const std::string& field, const std::string& message) {
  return HttpError(400, field, message);
}

// Typed reads of one field: the wrong type is a 400 naming the field.
// (An unsigned number past the signed range, 18446744073709551615, is no small integer: read
// as signed it would wrap to -1.)
int integer(const json& value, const std::string& field) {
  const bool fits = value.is_number_unsigned()
                        ? value.get<unsigned long long>() < (1ULL << 31)
                        : value.is_number_integer() && value.get<long long>() >= -(1LL << 31) &&
                              value.get<long long>() < (1LL << 31);
  if (!fits)
    throw bad(field, field + ": expected an integer (32 bits), got " + describe_json(value));
  return static_cast<int>(value.get<long long>());
}
float number(const json& value, const std::string& field) {
  if (!value.is_number())
    throw bad(field, field + ": expected a number, got " + describe_json(value));
  return value.get<float>();
}
bool boolean(const json& value, const std::string& field) {
  if (!value.is_boolean())
    throw bad(field, field + ": expected true or false, got " + describe_json(value));
  return value.get<bool>();
}
std::string text(const json& value, const std::string& field) {
  if (!value.is_string())
    throw bad(field, field + ": expected a string, got " + describe_json(value));
  return value.get<std::string>();
}
template <typename Read>
auto list(const json& value, const std::string& field, Read read) {
  if (!value.is_array()) throw bad(field, field + ": expected a list, got " + describe_json(value));
  std::vector<decltype(read(value, field))> out;
  for (const json& item : value) out.push_back(read(item, field));
  return out;
}

uint64_t unsigned_integer(const json& value, const std::string& field) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<long long>() >= 0))
    throw bad(field, field + ": expected an integer from 0 to 2^64-1, got " + describe_json(value));
  return value.get<uint64_t>();
}
long long wide(const json& value, const std::string& field) {
  return integer(value, field);
}
double wide_number(const json& value, const std::string& field) {
  return number(value, field);
}

// A JSON value as the option's type (request_options.h); the wrong type is a 400 naming it.
OptionValue option_value(const RequestOption& option, const json& value) {
  const std::string& field = option.name;
  switch (option.type) {
    case OptionType::kInteger:
      return wide(value, field);
    case OptionType::kUnsigned:
      return unsigned_integer(value, field);
    case OptionType::kNumber:
      return wide_number(value, field);
    case OptionType::kBoolean:
      return boolean(value, field);
    case OptionType::kText:
      return text(value, field);
    case OptionType::kIntegerList:
      return list(value, field, wide);
    case OptionType::kTextList:
      return list(value, field, text);
  }
  throw bad(field, field + ": an option of no known type");
}

// The sentences: "text" or "texts" (score: "source" and "target", each a string or a list).
std::vector<std::string> sentences(const json& body, const std::string& one,
                                   const std::string& many, bool& listed) {
  if (body.contains(one) && body.contains(many))
    throw bad(many, "give either " + one + " or " + many + ", not both");
  if (body.contains(one)) return {text(body[one], one)};
  if (!body.contains(many)) throw bad(one, "missing " + one + " (or " + many + ", a list)");
  listed = true;
  std::vector<std::string> out = list(body[many], many, text);
  if (out.empty()) throw bad(many, many + ": the list is empty");
  return out;
}

void check_sizes(const std::vector<std::string>& lines, const std::string& field,
                 const ServeLimits& limits) {
  if (lines.size() > limits.max_sentences)
    throw HttpError(413, field,
                    field + ": " + std::to_string(lines.size()) + " sentences, more than the " +
                        std::to_string(limits.max_sentences) + " a request may hold");
  const size_t most = limits.max_line_bytes ? limits.max_line_bytes : kMaxLineBytes;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].size() > most)
      throw HttpError(413, field,
                      field + ": sentence " + std::to_string(i + 1) + " has " +
                          std::to_string(lines[i].size()) + " bytes, more than the " +
                          std::to_string(most) + " a sentence may have");
}

}  // namespace

ServeInput read_serve_input(const std::string& body, Endpoint endpoint, const Request& base,
                            const ServeLimits& limits) {
  JsonDomBuilder builder(kMaxJsonDepth);
  json::sax_parse(body, &builder);
  switch (builder.problem()) {
    case JsonDomBuilder::Problem::kNone:
      break;
    case JsonDomBuilder::Problem::kTooDeep:
      throw bad("", "the body nests arrays and objects more than " + std::to_string(kMaxJsonDepth) +
                        " deep");
    case JsonDomBuilder::Problem::kDuplicateKey: {
      const std::vector<std::string>& path = builder.path();
      throw bad(path.size() == 1 ? path.front() : "",
                json_path_text(path) + " appears twice in the body");
    }
    case JsonDomBuilder::Problem::kSyntax:
      throw bad("", "the body is not valid JSON: " + printable(builder.syntax_message(), 200));
  }
  const json& document = builder.document();
  if (!document.is_object()) throw bad("", "the body must be a JSON object");

  ServeInput input;
  input.request = base;
  Request& request = input.request;
  request.kind = endpoint == Endpoint::kScore ? RequestKind::kScore : RequestKind::kTranslate;
  request.format = OutputFormat::kJsonl;
  request.search.max_length = std::min(request.search.max_length, limits.max_length);
  request.record.dump_attention = endpoint == Endpoint::kAttention;

  const std::vector<std::string> lines_fields =
      endpoint == Endpoint::kScore
          ? std::vector<std::string>{"source", "target", "sources", "targets"}
          : std::vector<std::string>{"text", "texts"};
  const OptionUse use = endpoint == Endpoint::kScore       ? kForScore
                        : endpoint == Endpoint::kAttention ? kForAttention
                                                           : kForTranslate;
  std::map<std::string, std::string> named;  // option -> the key that gave it
  for (const auto& [key, value] : document.items()) {
    if (std::find(lines_fields.begin(), lines_fields.end(), key) != lines_fields.end()) continue;
    const RequestOption* option = find_request_option(key, use);
    if (!option)
      throw bad(printable(key), "unknown option '" + printable(key) +
                                    "' for this endpoint (GET /v1/options lists them)");
    // One option under two names (ablate_heads and its older mask_heads) is said twice.
    if (const auto [said, first] = named.emplace(option->name, key); !first)
      throw bad(printable(key), "'" + printable(said->second) + "' and '" + printable(key) +
                                    "' name the same option: give one");
    if (option->named_in) request.*option->named_in = key;
    input.given.insert(option->name);
    option->set(request, option_value(*option, value));
  }
  if (request.record.view) request.record.dump_attention = false;  // the page, not the dump
  if (request.search.max_length > limits.max_length)
    throw bad("max_length", "max_length: " + std::to_string(request.search.max_length) +
                                " is more than this server's limit, " +
                                std::to_string(limits.max_length));
  try {
    check_request(request, FieldSpelling::kJson);
  } catch (const RequestError& e) {
    throw bad(e.field(), e.what());
  }

  if (endpoint != Endpoint::kScore) {
    input.lines = sentences(document, "text", "texts", input.many);
    check_sizes(input.lines, input.many ? "texts" : "text", limits);
    return input;
  }
  bool listed_targets = false;
  std::vector<std::string> sources = sentences(document, "source", "sources", input.many);
  std::vector<std::string> targets = sentences(document, "target", "targets", listed_targets);
  if (listed_targets != input.many || sources.size() != targets.size())
    throw bad("targets",
              "give one target per source (source and target, or sources and "
              "targets of the same length)");
  check_sizes(sources, input.many ? "sources" : "source", limits);
  check_sizes(targets, input.many ? "targets" : "target", limits);
  for (size_t i = 0; i < sources.size(); ++i) {
    std::replace(sources[i].begin(), sources[i].end(), '\t', ' ');  // as score's arguments
    input.lines.push_back(sources[i] + '\t' + targets[i]);
  }
  return input;
}

}  // namespace minimt::serve
