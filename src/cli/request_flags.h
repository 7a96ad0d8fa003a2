// The flags of translate and score that set a request option: each made from its row of app's
// table (request_options.h), with the row's value name, range, default, help and the option
// it needs, so that --help, the man page and the completions (made from --help) say what the
// table says, and a value the table refuses is refused as the flag is parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "minimt/app/run/request_options.h"

namespace minimt::cli {

// The flags of the rows that have one in a command of request.kind (has_flag), in the table's
// order, each filling its field of `request`; the command's own flags (files, the terminal) go
// between them, where add_through stops.
class RequestFlags {
 public:
  RequestFlags(CLI::App& command, Request& request) : command_(command), request_(request) {}
  // The flags of the rows not added yet, up to and including the row `name`.
  void add_through(const std::string& name);
  // The flags of the remaining rows; then each flag that needs another (--temperature needs
  // --sample, --dump-types --dump-attention) is told so: every flag exists by then.
  void finish();

 private:
  void add(const RequestOption& option);
  CLI::App& command_;
  Request& request_;
  size_t next_ = 0;  // the first row of request_options() not added yet
};

// The flag `flag` of `option` on `command`, its value given to `take` once parsed and checked.
CLI::Option* add_option_flag(CLI::App& command, const RequestOption& option,
                             const std::string& flag, std::function<void(const OptionValue&)> take);

}  // namespace minimt::cli
