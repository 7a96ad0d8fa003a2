// The process's standard descriptors: held at start, checked at the end.
#pragma once

namespace minimt::cli {

// Descriptors 0, 1 and 2 that are closed (2>&-) are taken by /dev/null opened the other way
// (a closed stdout read-only), so that no file minimt opens gets their number (warnings would
// go into it) and using them still fails as on a closed descriptor. SIGXFSZ (a file past
// ulimit -f) is ignored: the write then fails with EFBIG and is reported like any other write
// failure, and the temporary files are removed, where the signal would kill the run.
void hold_standard_descriptors();

// Flushes std::cout; throws IoError "cannot write standard output: REASON" when any write to
// it failed (>/dev/full), so that the exit status says so.
void check_standard_output();

}  // namespace minimt::cli
