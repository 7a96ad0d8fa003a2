// What a usage error adds to its message: the help of the subcommand it happened in, and for a
// word that is no subcommand, the subcommand it was probably meant to be.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace minimt::cli {

// "Run 'minimt SUB --help' for usage." for the subcommand the parse reached (the top level's
// help when none), preceded by "Did you mean 'translate'?" when the first argument is not a
// subcommand but one is at most two edits away from it.
std::string usage_hint(const CLI::App& app, int argc, char** argv);

}  // namespace minimt::cli
