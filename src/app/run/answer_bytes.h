// What an answer of ServingQueue holds, counted as it is made (QueueOptions::max_answer_bytes):
// each recorded attention number at kHeldBytesPerNumber, the logit lens's tokens, the records'
// text twice (in the records and the dump).
#pragma once

#include <cstddef>

#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"

namespace minimt {

// The bytes `slice`'s translations and records add to its request's answer.
size_t held_by(const LineBatch& slice, const RequestPlan& plan);

}  // namespace minimt
