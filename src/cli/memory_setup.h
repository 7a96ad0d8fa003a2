// The executable's memory policy: a process-wide malloc setting, so it lives here and not in
// the library.
#pragma once

namespace minimt::cli {

// Keeps memory that minimt frees for its next allocations instead of returning it to the
// kernel: each batch's decoder caches and scratch then reuse pages already mapped, where
// fresh pages would each cost a page fault and zeroing (several microseconds each in a virtual
// machine; half the CPU time of a held-out run before this).
void keep_freed_memory();

}  // namespace minimt::cli
