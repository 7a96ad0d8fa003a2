// The subcommands of the minimt executable, one file each: add_X declares subcommand X and its
// options on the application (add_command) and returns how to run it. main.cpp parses the command
// line, runs the subcommand given and turns what it throws into exit statuses.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "minimt/app/io/model_search.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/model/model.h"

namespace minimt::cli {

struct Command {
  CLI::App* app = nullptr;  // the subcommand, owned by the application
  // Prints the results and returns the exit status: 0, or 1 when a translate line failed.
  // Throws minimt::Error on a bad model, an unreadable file and the like.
  std::function<int()> run;
};

// Subcommand `name` of `app`, whose options fill an Args that lives as long as the command:
// declare(command, args) describes it and adds the options (everything its --help shows),
// run(args) runs it once they are parsed.
template <typename Args, typename Declare, typename Run>
Command add_command(CLI::App& app, const std::string& name, Declare declare, Run run) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(name);
  declare(*command, *args);
  return {command, [args, run] { return run(*args); }};
}

Command add_translate(CLI::App& app);
Command add_score(CLI::App& app);
Command add_heads(CLI::App& app);
Command add_info(CLI::App& app);
Command add_tokenize(CLI::App& app);
Command add_view(CLI::App& app);
Command add_show(CLI::App& app);
Command add_vocab(CLI::App& app);
Command add_models(CLI::App& app);
Command add_convert(CLI::App& app);
Command add_serve(CLI::App& app);

// -m,--model for `command`, stored in `target` (translate, info, tokenize, vocab).
void add_model_option(CLI::App& command, std::string& target);
// What app's model search reads of this process's environment (model_search.h), read once.
const ModelEnvironment& model_environment();
// --model, else $MINIMT_MODEL, else the shipped models/en-fr next to the build or install tree
// (model_search.h's resolve_model_dir with model_environment()).
std::string resolve_model_dir(const std::string& option);

// Loads the model named by --model (resolve_model_dir) with the kernel $MINIMT_KERNELS asks for
// and prints its warnings on stderr:
// avx512, avx2, generic or openblas (unset or "auto": the fastest this CPU runs).
// compute_type is a --compute-type word (float32, int8 or bf16), or "" for the model file's;
// int8 runs the int8 kernel of the instruction set MINIMT_KERNELS names. Throws Error when this
// CPU cannot run it.
std::shared_ptr<const Model> load_model(const std::string& option,
                                        const std::string& compute_type = "");
// --compute-type TYPE, into target (which holds the default): the request option's flag, made
// from its row (request_flags.cpp) for info and heads as for translate.
void add_compute_type_option(CLI::App& command, std::string& target);

// --sentences LIST (1,4-6) into `target`, for the commands that read a dump (view, show).
CLI::Option* add_sentences_option(CLI::App& command, std::vector<std::string>& target);

// An attention dump from `path` ("-": stdin); throws Error saying why it cannot be read.
AttentionDump read_dump_file(const std::string& path);

// "minimt: wrote PATH: N sentences, ..." on stderr, for a page of `bytes` (view, translate
// --view).
void report_view(const std::string& path, const ViewSummary& summary, size_t bytes,
                 bool difference = false);

}  // namespace minimt::cli
