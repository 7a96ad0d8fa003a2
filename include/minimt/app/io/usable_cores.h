// How many cores this process may run on: what a thread count of 0 ("one per core") means.
#pragma once

namespace minimt {

// The cores in the process's affinity mask (taskset, a container's cpuset), at least 1.
int usable_cores();

}  // namespace minimt
