// How the table of request options (request_options.cpp) is read: where an option applies,
// finding one by name, and its help and values as text.
#include <cctype>
#include <sstream>

#include "minimt/app/run/request_options.h"

namespace minimt {
namespace {

// option_value_text's words for each type of value.
struct ValueText {
  std::string operator()(long long v) const { return std::to_string(v); }
  std::string operator()(uint64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const {
    std::ostringstream text;  // as people write it: 0.001, 1e-06
    text << v;
    return text.str();
  }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::string& v) const { return v; }
  template <typename Item>
  std::string operator()(const std::vector<Item>& items) const {
    std::string text;
    for (const Item& item : items) text += (text.empty() ? "" : ",") + (*this)(item);
    return text;
  }
};

}  // namespace

bool serves(const RequestOption& option, OptionUse use) {
  if (option.uses & kNotServed) return false;
  return (option.uses & use) != 0 || (use == kForAttention && (option.uses & kForTranslate) != 0);
}

bool has_flag(const RequestOption& option, RequestKind kind) {
  const unsigned uses = kForAttention | (kind == RequestKind::kScore ? kForScore : kForTranslate);
  return (option.uses & kNoFlag) == 0 && (option.uses & uses) != 0;
}

const RequestOption* find_request_option(const std::string& name, OptionUse use) {
  for (const RequestOption& option : request_options())
    if (serves(option, use) &&
        (option.name == name || (!option.alias.empty() && option.alias == name)))
      return &option;
  return nullptr;
}

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::kInteger:
      return "integer";
    case OptionType::kUnsigned:
      return "unsigned integer";
    case OptionType::kNumber:
      return "number";
    case OptionType::kBoolean:
      return "boolean";
    case OptionType::kText:
      return "string";
    case OptionType::kIntegerList:
      return "list of integers";
    case OptionType::kTextList:
      return "list of strings";
  }
  return "?";
}

std::string option_help(const RequestOption& option, FieldSpelling spelling) {
  const std::string& text = option.help;
  if (spelling == FieldSpelling::kOption) return text;
  std::string help;  // each "--word-word" as "word_word"
  const auto in_flag = [&text](size_t i) {
    return i < text.size() && (std::islower(static_cast<unsigned char>(text[i])) || text[i] == '-');
  };
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "--") != 0 || !in_flag(i + 2) || text[i + 2] == '-') {
      help += text[i++];
      continue;
    }
    size_t end = i + 2;
    while (in_flag(end)) ++end;
    for (i += 2; i < end; ++i) help += text[i] == '-' ? '_' : text[i];
  }
  return help;
}

std::string option_value_text(const OptionValue& value) {
  return std::visit(ValueText(), value);
}

}  // namespace minimt
