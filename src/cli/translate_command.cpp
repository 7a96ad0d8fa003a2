// minimt translate: lines in, one output record per line out, in input order, streamed. Its
// flags fill a Request (app/run/request.h): the request options' from app's table
// (line_options.cpp), search's among them; line_run.h runs it.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/line_run.h"

namespace minimt::cli {
namespace {

void add_translate_options(CLI::App& command, LineRunArgs& args) {
  command.description("translate sentences: arguments, or the lines of a file or stdin");
  args.command = &command;
  CLI::Option* input = add_line_options(command, args);
  command.add_option("text", args.texts, "sentences, one per argument; with none, read lines")
      ->excludes(input);
}

}  // namespace

Command add_translate(CLI::App& app) {
  return add_command<LineRunArgs>(app, "translate", add_translate_options, run_lines);
}

}  // namespace minimt::cli
