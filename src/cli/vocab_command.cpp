// minimt vocab: every piece a model's tokenizer knows, with its id, so that a user can see what
// the model can read (and what it would read as <unk>).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/base/error.h"
#include "minimt/base/json_writer.h"
#include "minimt/base/visible_text.h"
#include "minimt/model/model.h"

namespace minimt::cli {
namespace {

struct VocabArgs {
  std::string model;
  std::string side = "source";
  std::string format = "text";
};

// The role of a special id in the config ("pad", "unk", "bos", "eos"), or "".
const char* special_name(int id, const SpecialTokens& special) {
  if (id == special.pad) return "pad";
  if (id == special.unk) return "unk";
  if (id == special.bos) return "bos";
  if (id == special.eos) return "eos";
  return "";
}

int run_vocab(const VocabArgs& args) {
  auto model = load_model(args.model);
  const Tokenizer& tokenizer =
      args.side == "source" ? model->source_tokenizer() : model->target_tokenizer();
  const SpecialTokens& special = model->config().special;
  std::string out;
  for (int id = 0; id < tokenizer.size(); ++id) {
    const std::string piece = tokenizer.piece(id);
    if (args.format == "jsonl") {
      out += "{\"id\":" + std::to_string(id) + ",\"piece\":";
      append_json_string(out, piece);
      if (const char* name = special_name(id, special); *name)
        out += std::string(",\"special\":\"") + name + '"';
      out += "}\n";
    } else {
      out += std::to_string(id) + '\t' + visible_text(piece) + '\n';
    }
  }
  std::cout << out;  // a write failure is reported by main (check_standard_output)
  return 0;
}

void add_vocab_options(CLI::App& command, VocabArgs& args) {
  command.description("list a model's pieces with their ids (text: id<TAB>piece per line)");
  add_model_option(command, args.model);
  add_side_option(command, args.side, "source (what the encoder reads) or target");
  command
      .add_option("--format", args.format,
                  "text: id<TAB>piece; jsonl: {\"id\", \"piece\"[, \"special\"]} per line")
      ->check(CLI::IsMember({"text", "jsonl"}))
      ->capture_default_str();
}

}  // namespace

Command add_vocab(CLI::App& app) {
  return add_command<VocabArgs>(app, "vocab", add_vocab_options, run_vocab);
}

}  // namespace minimt::cli
