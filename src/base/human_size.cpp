#include "minimt/base/human_size.h"

#include <cstdio>

namespace minimt {

std::string human_size(long long bytes, bool whole_kb) {
  char text[32];
  if (bytes >= (1 << 20))
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1048576.0);
  else if (whole_kb)
    std::snprintf(text, sizeof text, "%.0f KB", bytes / 1024.0);
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.1f KB", bytes / 1024.0);
  else
    std::snprintf(text, sizeof text, "%lld B", bytes);
  return text;
}

}  // namespace minimt
