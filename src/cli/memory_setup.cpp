#include "cli/memory_setup.h"

#include <malloc.h>

namespace minimt::cli {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Blocks up to 64 MiB come from the heap (not a fresh mapping each), and up to 512 MiB of
  // free heap stays mapped. Setting these turns off glibc's dynamic thresholds.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

}  // namespace minimt::cli
