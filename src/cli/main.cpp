// minimt command line: builds the application from the subcommands of src/cli, parses the
// arguments and runs the subcommand given. The exit status is 0 on success, 1 on a failure (a
// bad model, an unreadable file: an Error caught here; a line that translate could not
// translate: the status its run returns) and 2 on a usage error. Messages carry names and text
// minimt did not write (paths, config strings, input): they are printed through visible_text.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <string>
#include <system_error>

#include "cli/blas_setup.h"
#include "cli/commands.h"
#include "cli/memory_setup.h"
#include "cli/path_guard.h"
#include "cli/standard_streams.h"
#include "cli/usage_hint.h"
#include "minimt/app/run/request.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

constexpr int kExitFailure = 1, kExitUsage = 2;

int main(int argc, char** argv) {
  minimt::cli::hold_standard_descriptors();  // first: before anything opens a file
  minimt::cli::prepare_blas_environment();
  minimt::cli::keep_freed_memory();

  CLI::App app{"minimt: run encoder-decoder Transformer translators and look inside them"};
  const std::string version = std::string("minimt ") + MINIMT_VERSION;
  app.set_version_flag("--version", version);
  // At most one subcommand; a missing one is reported after parsing, so that an unknown word
  // (minimt transalte) is reported as such rather than as a missing subcommand.
  app.require_subcommand(0, 1);
  const minimt::cli::Command commands[] = {
      minimt::cli::add_translate(app), minimt::cli::add_score(app),    minimt::cli::add_heads(app),
      minimt::cli::add_info(app),      minimt::cli::add_tokenize(app), minimt::cli::add_view(app),
      minimt::cli::add_show(app),      minimt::cli::add_vocab(app),    minimt::cli::add_models(app),
      minimt::cli::add_convert(app),   minimt::cli::add_serve(app)};
  // --version also works after a subcommand (minimt translate --version), as --help does.
  for (const auto& command : commands) command.app->set_version_flag("--version", version);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version: printed, status 0
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "minimt: " << minimt::visible_text(e.what()) << "\n"
              << minimt::visible_lines(minimt::cli::usage_hint(app, argc, argv)) << "\n";
    return kExitUsage;
  }

  std::string running;  // the subcommand, for the usage hint of an error found after parsing
  auto usage_failure = [&running](const std::exception& e) {
    std::cerr << "minimt: error: " << minimt::visible_text(e.what()) << "\nRun 'minimt " << running
              << " --help' for usage.\n";
    return kExitUsage;
  };
  try {
    for (const auto& command : commands)
      if (*command.app) {
        running = command.app->get_name();
        const int status = command.run();
        minimt::cli::check_standard_output();
        return status;
      }
  } catch (const minimt::cli::UsageError& e) {
    return usage_failure(e);
  } catch (const minimt::RequestError& e) {  // a value or combination of options refused
    return usage_failure(e);
  } catch (const minimt::Error& e) {
    std::cerr << "minimt: error: " << minimt::visible_text(e.what()) << "\n";
    return kExitFailure;
  } catch (const std::bad_alloc&) {
    // Whatever asked for the memory (a batch, a dump, a page): the message would not help more.
    std::cerr << "minimt: error: out of memory (try fewer --threads, a smaller --batch-size or "
                 "a smaller input)\n";
    return kExitFailure;
  } catch (const std::system_error& e) {
    // Mostly a thread that could not start (too many threads for the memory or process limits).
    std::cerr << "minimt: error: " << minimt::visible_text(e.what()) << " (try fewer --threads)\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "minimt: internal error: " << minimt::visible_text(e.what()) << "\n";
    return kExitFailure;
  }
  std::cerr << "minimt: a subcommand is required\nRun 'minimt --help' for usage.\n";
  return kExitUsage;
}
