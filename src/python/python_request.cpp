// Keyword arguments to a Request (python_request.h).
#include "python/python_request.h"

#include <climits>

#include "minimt/app/run/request_options.h"

namespace py = pybind11;

namespace minimt::python {
namespace {

// Options the table has that a Python call cannot take, and why.
const char* not_in_calls(const std::string& name) {
  if (name == "compute_type") return "give compute_type to minimt.Model(...)";
  if (name == "view") return "minimt.view(results) draws the page";
  return nullptr;
}

[[noreturn]] void wrong_type(const RequestOption& option, const std::string& name) {
  throw RequestError(option.name,
                     name + ": expected " + std::string(option_type_name(option.type)));
}

long long integer(const py::handle& value, const RequestOption& option, const std::string& name) {
  // bool is a subclass of int in Python: True is not a beam size.
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
    wrong_type(option, name);
  long long number = 0;
  try {
    number = value.cast<long long>();
  } catch (const py::cast_error&) {
    throw RequestError(option.name, name + ": " + std::string(py::str(value)) + " is too large");
  }
  if (option.type != OptionType::kUnsigned && (number < INT_MIN || number > INT_MAX))
    throw RequestError(option.name, name + ": " + std::to_string(number) + " is too large");
  return number;
}

// A list's items, or a tuple's: a single value is not taken for a list of one.
py::list items(const py::handle& value, const RequestOption& option, const std::string& name) {
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    wrong_type(option, name);
  return py::list(py::reinterpret_borrow<py::object>(value));
}

OptionValue option_value(const RequestOption& option, const std::string& name,
                         const py::handle& value) {
  switch (option.type) {
    case OptionType::kInteger:
      return integer(value, option, name);
    case OptionType::kUnsigned: {
      const long long number = integer(value, option, name);
      if (number < 0) throw RequestError(option.name, name + ": must be 0 or more");
      return static_cast<uint64_t>(number);
    }
    case OptionType::kNumber:
      if (py::isinstance<py::bool_>(value) ||
          !(py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value)))
        wrong_type(option, name);
      return value.cast<double>();
    case OptionType::kBoolean:
      if (!py::isinstance<py::bool_>(value)) wrong_type(option, name);
      return value.cast<bool>();
    case OptionType::kText:
      if (!py::isinstance<py::str>(value)) wrong_type(option, name);
      return value.cast<std::string>();
    case OptionType::kIntegerList: {
      std::vector<long long> list;
      for (const py::handle item : items(value, option, name))
        list.push_back(integer(item, option, name));
      return list;
    }
    case OptionType::kTextList: {
      std::vector<std::string> list;
      for (const py::handle item : items(value, option, name)) {
        if (!py::isinstance<py::str>(item)) wrong_type(option, name);
        list.push_back(item.cast<std::string>());
      }
      return list;
    }
  }
  wrong_type(option, name);
}

}  // namespace

PythonRequest python_request(RequestKind kind, const py::dict& options, bool attention) {
  PythonRequest result;
  Request& request = result.request;
  request.kind = kind;
  request.format = OutputFormat::kJsonl;  // the records are read back as JSON
  const OptionUse use = kind == RequestKind::kScore ? kForScore : kForTranslate;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (value.is_none()) continue;  // None: the default, as when not given
    const RequestOption* option = find_request_option(name, kForAttention);
    if (option && !(option->uses & use) && !(option->uses & kForAttention)) option = nullptr;
    if (!option)
      throw RequestError(name, name + ": not an option of " +
                                   (kind == RequestKind::kScore ? "score" : "translate") +
                                   " (minimt.options() lists them)");
    if (const char* why = not_in_calls(option->name)) throw RequestError(name, name + ": " + why);
    option->set(request, option_value(*option, name, value));
    if (option->uses & kForAttention) attention = true;
    if (name == option->alias) request.mask_heads_named = name;
    result.given.insert(option->name);
  }
  request.record.dump_attention = attention;
  check_request(request, FieldSpelling::kJson);
  return result;
}

}  // namespace minimt::python
