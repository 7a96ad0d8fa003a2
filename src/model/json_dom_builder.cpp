#include "minimt/model/json_dom_builder.h"

#include "minimt/model/untrusted_json.h"

namespace minimt {

nlohmann::json* JsonDomBuilder::place(nlohmann::json&& value) {
  if (open_.empty()) {
    root_ = std::move(value);
    return &root_;
  }
  nlohmann::json& container = *open_.back();
  if (container.is_array()) {
    container.push_back(std::move(value));
    return &container.back();
  }
  *next_value_ = std::move(value);
  return next_value_;
}

bool JsonDomBuilder::open(nlohmann::json::value_t type) {
  if (static_cast<int>(open_.size()) >= max_depth_) {
    problem_ = Problem::kTooDeep;
    return false;
  }
  open_.push_back(place(nlohmann::json(type)));
  keys_.emplace_back();
  return true;
}

bool JsonDomBuilder::close() {
  open_.pop_back();
  keys_.pop_back();
  return true;
}

bool JsonDomBuilder::key(nlohmann::json::string_t& name) {
  nlohmann::json& object = *open_.back();
  // A std::map lookup: the cost per key grows with the log of the object's size only.
  if (object.contains(name)) {
    problem_ = Problem::kDuplicateKey;
    keys_.back() = name;
    path_ = current_path();
    return false;
  }
  next_value_ = &object[name];
  keys_.back() = std::move(name);
  return true;
}

bool JsonDomBuilder::parse_error(std::size_t, const std::string&,
                                 const nlohmann::detail::exception& error) {
  problem_ = Problem::kSyntax;
  syntax_message_ = error.what();
  return false;
}

std::vector<std::string> JsonDomBuilder::current_path() const {
  std::vector<std::string> path;
  for (size_t i = 0; i < open_.size(); ++i) {
    if (open_[i]->is_object())
      path.push_back(keys_[i]);
    else if (!open_[i]->empty())  // the element being read is the array's last
      path.push_back("[" + std::to_string(open_[i]->size() - 1) + "]");
  }
  return path;
}

std::string json_path_text(const std::vector<std::string>& path, size_t from) {
  std::string text;
  for (size_t i = from; i < path.size(); ++i) {
    const bool index = !path[i].empty() && path[i][0] == '[';
    text += (index || text.empty() ? "" : ".") + printable(path[i]);
  }
  return text;
}

}  // namespace minimt
