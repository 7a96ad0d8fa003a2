// Sizes for people.
#pragma once

#include <string>

namespace minimt {

// A file size: "6.7 MB", "11.5 KB", "512 B". With whole_kb, kilobytes are rounded to whole ones
// and sizes under 1 KB are given in KB too ("49 KB", "0 KB"), as view reports pages.
std::string human_size(long long bytes, bool whole_kb = false);

}  // namespace minimt
