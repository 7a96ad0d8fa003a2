#include "minimt/app/record/attention_dump.h"

#include "app/record/dump_keys.h"
#include "app/record/json_lists.h"
#include "minimt/base/json_writer.h"

namespace minimt {
namespace {

namespace schema = dump_schema;

// "name": (a key of the dump's schema: plain ASCII, nothing to escape).
std::string key(const char* name) {
  return std::string("\"") + name + "\":";
}

std::string join_ints(const std::vector<int>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

void write_strings(std::ostream& out, const std::vector<std::string>& texts) {
  write_list(out, texts.size(), [&](size_t i) { out << json_string(texts[i]); });
}

}  // namespace

AttentionDumpWriter::AttentionDumpWriter(std::ostream& out, const AttentionDump& header)
    : out_(out) {
  const DumpKept& kept = header.kept;
  out_ << '{' << key(schema::kFormat) << json_string(schema::kFormatName) << ','
       << key(schema::kVersionKey) << schema::kVersion << ',' << key(schema::kModel)
       << json_string(header.model) << ',' << key(schema::kComputeType)
       << json_string(header.compute_type) << ',' << key(schema::kSelection) << '{'
       << key(schema::kTypes);
  write_strings(out_, header.types);
  out_ << ',' << key(schema::kLayers) << (kept.all_layers ? "null" : join_ints(kept.layers)) << ','
       << key(schema::kHeads) << join_ints(kept.heads);
  // The layer numbers the selection names in each stack, so that "-1" reads as its number.
  if (!kept.all_layers)
    out_ << ',' << key(schema::kEncoderLayers) << join_ints(kept.encoder_layers) << ','
         << key(schema::kDecoderLayers) << join_ints(kept.decoder_layers) << ','
         << key(schema::kEncoderDepth) << kept.encoder_depth << ',' << key(schema::kDecoderDepth)
         << kept.decoder_depth;
  out_ << "},\n";
  if (!header.masked_heads.empty())
    out_ << key(schema::kMaskedHeads) << json_string(header.masked_heads) << ",\n";
  if (!header.notes.empty()) {
    out_ << key(schema::kNotes);
    write_strings(out_, header.notes);
    out_ << ",\n";
  }
  if (!header.attribution_compute_type.empty())
    out_ << key(schema::kAttributionComputeType) << json_string(header.attribution_compute_type)
         << ",\n";
  out_ << key(schema::kSentences) << '[';
}

void AttentionDumpWriter::add(const DumpSentence& s) {
  out_ << (first_ ? "\n" : ",\n") << '{' << key(schema::kSource) << json_string(s.source);
  first_ = false;
  if (!s.error.empty()) {
    out_ << ',' << key(schema::kError) << json_string(s.error) << '}';
    return;
  }
  out_ << ',' << key(schema::kTranslation) << json_string(s.translation);
  dump_keys::write_keys(out_, s);
  out_ << '}';
}

void AttentionDumpWriter::finish() {
  out_ << "\n]}\n";
}

}  // namespace minimt
