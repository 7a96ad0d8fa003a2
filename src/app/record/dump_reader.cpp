#include "minimt/app/record/dump_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <streambuf>

#include "app/record/dump_keys.h"
#include "app/record/dump_selection.h"
#include "minimt/base/error.h"
#include "minimt/model/json_dom_builder.h"

namespace minimt {
namespace {

using nlohmann::json;
namespace schema = dump_schema;
using dump_read::Selection;
using dump_read::string_field;
using dump_read::string_list;

DumpSentence read_sentence(const json& entry, int number, const Selection& selection,
                           const std::string& where) {
  if (!entry.is_object()) throw Error(where + " is not an object");
  DumpSentence s;
  s.number = number;
  s.source = string_field(entry, schema::kSource, where);
  s.translation = string_field(entry, schema::kTranslation, where);
  if (entry.contains(schema::kError)) {
    s.error = string_field(entry, schema::kError, where);
    if (s.error.empty()) s.error = "failed";
    return s;
  }
  dump_keys::read_keys(entry, {selection, where}, s);
  return s;
}

// The most bytes of JSON read as a dump: its parsed form takes several times as much memory.
constexpr long long kMaxDumpBytes = 1LL << 30;

Error too_large(const std::string& name) {
  return Error(name +
               ": larger than 1 GiB, the most minimt view reads (dump fewer sentences, "
               "or select with --dump-types, --dump-layers, --dump-heads)");
}

// Bytes from the stream's position to its end; -1 when it cannot seek (a pipe).
long long remaining_bytes(std::istream& in) {
  const std::streampos start = in.tellg();
  if (start < 0) {
    in.clear();
    return -1;
  }
  in.seekg(0, std::ios::end);
  const std::streampos end = in.tellg();
  in.clear();
  in.seekg(start);
  return end < 0 ? -1 : static_cast<long long>(end - start);
}

// Reads through another stream buffer, throws too_large past kMaxDumpBytes, and notes the first
// NUL byte (nlohmann's parser takes one for the end of the text and would ignore what follows).
class LimitedInput : public std::streambuf {
 public:
  LimitedInput(std::streambuf& source, const std::string& name) : source_(source), name_(name) {}
  long long first_nul() const { return first_nul_; }  // -1: none read

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize n = source_.sgetn(buffer_, sizeof buffer_);
    if (n <= 0) return traits_type::eof();
    if (const void* nul = first_nul_ < 0 ? std::memchr(buffer_, '\0', n) : nullptr)
      first_nul_ = read_ + (static_cast<const char*>(nul) - buffer_);
    read_ += n;
    if (read_ > kMaxDumpBytes) throw too_large(name_);
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::streambuf& source_;
  const std::string& name_;
  long long read_ = 0;
  long long first_nul_ = -1;
  char buffer_[1 << 16];
};

// "NAME: sentence 3: key 'source' appears twice" from the builder's path to the key.
Error duplicate_key(const std::string& name, const std::vector<std::string>& path) {
  // The builder writes a position in an array as "[N]" (a key could look so too: then it is not
  // all digits, or "sentences" was an object and the message names the key as it is).
  const auto position = [](const std::string& step) -> long long {
    if (step.size() < 3 || step.size() > 12 || step.front() != '[' || step.back() != ']') return -1;
    long long n = 0;
    for (size_t i = 1; i + 1 < step.size(); ++i) {
      if (step[i] < '0' || step[i] > '9') return -1;
      n = n * 10 + (step[i] - '0');
    }
    return n;
  };
  if (path.size() > 2 && path[0] == schema::kSentences && position(path[1]) >= 0)
    return Error(name + ": sentence " + std::to_string(position(path[1]) + 1) + ": key '" +
                 json_path_text(path, 2) + "' appears twice");
  return Error(name + ": key '" + json_path_text(path) + "' appears twice");
}

}  // namespace

AttentionDump parse_attention_dump(const json& document, const std::string& name) {
  if (!document.is_object() || document.value(schema::kFormat, json()) != schema::kFormatName)
    throw Error(name + ": not a minimt attention dump (\"format\" should be \"minimt-attention\")");
  json version = document.value(schema::kVersionKey, json());
  if (version != schema::kVersion)
    // Only a number is printed: dumping an arbitrary (perhaps deeply nested) value could recurse
    // without bound.
    throw Error(
        name + ": attention dump version " +
        (version.is_number() ? version.dump() : std::string("of type ") + version.type_name()) +
        " is not supported (this minimt reads version 1)");
  AttentionDump dump;
  dump.model = string_field(document, schema::kModel, name);
  dump.compute_type = string_field(document, schema::kComputeType, name);
  const Selection selection = dump_read::read_selection(document, name, dump);
  dump.notes = string_list(document.value(schema::kNotes, json()), name + ": \"notes\"");
  if (document.contains(schema::kAttributionComputeType)) {
    dump.attribution_compute_type = string_field(document, schema::kAttributionComputeType, name);
    if (dump.attribution_compute_type != schema::kAttributionPrecision)
      throw Error(name + ": \"" + schema::kAttributionComputeType + "\" is \"" +
                  dump.attribution_compute_type + "\" (attributions are computed in " +
                  schema::kAttributionPrecision + ")");
  }
  auto sentences = document.find(schema::kSentences);
  if (sentences == document.end() || !sentences->is_array())
    throw Error(name + ": \"sentences\" is missing or not a list");
  dump.sentences.reserve(sentences->size());  // no copies of the sentences as the list grows
  int number = 0;
  for (const json& entry : *sentences) {
    ++number;
    dump.sentences.push_back(
        read_sentence(entry, number, selection, name + ": sentence " + std::to_string(number)));
  }
  return dump;
}

AttentionDump read_attention_dump(std::istream& in, const std::string& name) {
  const long long size = remaining_bytes(in);
  if (size > kMaxDumpBytes) throw too_large(name);
  LimitedInput limited(*in.rdbuf(), name);  // for a pipe, whose size is only known at its end
  std::istream bounded(&limited);
  // A dump nests 6 levels deep; far deeper input would overflow the stack when copied.
  constexpr int kMaxDepth = 64;
  JsonDomBuilder builder(kMaxDepth);
  json::sax_parse(bounded, &builder);
  switch (builder.problem()) {
    case JsonDomBuilder::Problem::kNone:
      break;
    case JsonDomBuilder::Problem::kSyntax:  // parse_error, or out_of_range for 1e999
      throw Error(name + ": not valid JSON (" + builder.syntax_message() + ")");
    case JsonDomBuilder::Problem::kTooDeep:
      throw Error(name + ": not valid JSON (nested deeper than " + std::to_string(kMaxDepth) +
                  " levels)");
    case JsonDomBuilder::Problem::kDuplicateKey:
      throw duplicate_key(name, builder.path());
  }
  if (limited.first_nul() >= 0)
    throw Error(name + ": not valid JSON (a NUL byte at byte " +
                std::to_string(limited.first_nul()) + "; JSON text has none)");
  return parse_attention_dump(builder.document(), name);
}

}  // namespace minimt
