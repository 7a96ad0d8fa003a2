// A Python call's keyword arguments as a Request: each named like a field of minimt serve's JSON
// (beam_size, n_best, dump_scores...), read through app's table of request options
// (request_options.h), so that Python takes every option the CLI and the server take, with the
// same checks and the same messages (spelled as the keyword: beam_size, not --beam-size).
#pragma once

#include <pybind11/pybind11.h>

#include <set>
#include <string>

#include "minimt/app/run/request.h"

namespace minimt::python {

struct PythonRequest {
  Request request;
  std::set<std::string> given;  // the options the call named (the model's defaults fill the rest)
};

// Throws RequestError naming the keyword for an unknown option, a value of the wrong type, or
// one the request checks refuse (check_request). `attention` asks for the attention arrays; any
// option of the dump (dump_scores, logit_lens...) asks for them too.
PythonRequest python_request(RequestKind kind, const pybind11::dict& options, bool attention);

}  // namespace minimt::python
