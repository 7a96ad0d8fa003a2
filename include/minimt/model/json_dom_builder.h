// A handler for nlohmann::json::sax_parse that builds the document json::parse would, and stops
// where the parser would let a file say one thing twice: a key named twice in one object
// (json::parse keeps the last). It also bounds nesting as it reads, so a stream needs no scan
// beforehand, and it costs the same per value however large a container grows (json::parse with
// a callback scans the whole parent container at the end of each object: quadratic).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace minimt {

class JsonDomBuilder {
 public:
  enum class Problem { kNone, kSyntax, kTooDeep, kDuplicateKey };

  explicit JsonDomBuilder(int max_depth) : max_depth_(max_depth) {}

  // After sax_parse: the document (when problem() is kNone), or what stopped it.
  nlohmann::json& document() { return root_; }
  Problem problem() const { return problem_; }
  // kSyntax: the parser's message ("[json.exception.parse_error.101] ...").
  const std::string& syntax_message() const { return syntax_message_; }
  // kDuplicateKey: the keys (and "[N]" array positions) from the top down to the key named
  // twice, unescaped.
  const std::vector<std::string>& path() const { return path_; }

  // The SAX interface nlohmann::json::sax_parse calls.
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(nlohmann::json::number_integer_t value) { return add(value); }
  bool number_unsigned(nlohmann::json::number_unsigned_t value) { return add(value); }
  bool number_float(nlohmann::json::number_float_t value, const std::string&) { return add(value); }
  bool string(nlohmann::json::string_t& value) { return add(std::move(value)); }
  bool binary(nlohmann::json::binary_t& value) { return add(std::move(value)); }
  bool start_object(std::size_t) { return open(nlohmann::json::value_t::object); }
  bool start_array(std::size_t) { return open(nlohmann::json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(nlohmann::json::string_t& name);
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error);

 private:
  int max_depth_;
  nlohmann::json root_;
  std::vector<nlohmann::json*> open_;     // the containers being filled, outermost first
  std::vector<std::string> keys_;         // per open container: its current key (objects)
  nlohmann::json* next_value_ = nullptr;  // in an object: where the value of the last key goes
  Problem problem_ = Problem::kNone;
  std::string syntax_message_;
  std::vector<std::string> path_;

  template <typename Value>
  bool add(Value&& value) {
    place(nlohmann::json(std::forward<Value>(value)));
    return true;
  }
  nlohmann::json* place(nlohmann::json&& value);
  bool open(nlohmann::json::value_t type);
  bool close();
  std::vector<std::string> current_path() const;
};

// "a.b[2].c": a path() for a message, each key made printable.
std::string json_path_text(const std::vector<std::string>& path, size_t from = 0);

}  // namespace minimt
