// The subcommands of the minimt executable, one file each: add_X declares subcommand X and its
// options on the application and returns how to run it. main.cpp parses the command line, runs
// the subcommand given and turns what it throws into exit statuses.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;
}  // namespace CLI

#include "minimt/app/attention_view.h"
#include "minimt/model/model.h"

namespace minimt::cli {

struct Command {
  CLI::App* app = nullptr;  // the subcommand, owned by the application
  // Prints the results and returns the exit status: 0, or 1 when a translate line failed.
  // Throws minimt::Error on a bad model, an unreadable file and the like.
  std::function<int()> run;
};

Command add_translate(CLI::App& app);
Command add_score(CLI::App& app);
Command add_heads(CLI::App& app);
Command add_info(CLI::App& app);
Command add_tokenize(CLI::App& app);
Command add_view(CLI::App& app);
Command add_vocab(CLI::App& app);

// -m,--model for `command`, stored in `target` (translate, info, tokenize, vocab).
void add_model_option(CLI::App& command, std::string& target);
// --model, else $MINIMT_MODEL, else the shipped models/en-fr next to the build or install tree.
std::string resolve_model_dir(const std::string& option);

// Loads the model named by --model (resolve_model_dir) with the kernel $MINIMT_KERNELS asks for:
// avx512, avx2, generic or openblas (unset or "auto": the fastest this CPU runs).
std::shared_ptr<const Model> load_model(const std::string& option);

// The page for `dump` and what it holds (view, translate --view).
struct RenderedView {
  std::string text;
  ViewSummary summary;
};
RenderedView render_view(const AttentionDump& dump, const ViewOptions& options);
// "minimt: wrote PATH: N sentences, ..." on stderr.
void report_view(const std::string& path, const RenderedView& page);

}  // namespace minimt::cli
