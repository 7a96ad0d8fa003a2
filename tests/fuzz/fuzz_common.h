// Shared by the libFuzzer targets: temporary files and the rule that decides a finding.
// Refusing input with minimt::Error is the expected outcome; any other exception is what the
// CLI would report as "internal error", so it aborts (a finding) like a crash does.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "minimt/base/error.h"

namespace minimt_fuzz {

// A private directory for this process, removed at exit (a plain buffer: static strings may be
// destroyed before the atexit handler runs).
inline const char* scratch_dir() {
  static char dir[] = "/tmp/minimt-fuzz-XXXXXX";
  static const bool made = [] {
    if (!mkdtemp(dir)) std::abort();
    std::atexit([] { std::system((std::string("rm -rf ") + dir).c_str()); });
    return true;
  }();
  (void)made;
  return dir;
}

inline std::string write_file(const std::string& name, const uint8_t* data, size_t size) {
  std::string path = std::string(scratch_dir()) + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::abort();
  return path;
}

// Runs f; a minimt::Error is a clean refusal, anything else escaping is a finding.
template <typename F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const minimt::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimt fuzz: exception that is not minimt::Error: %s\n", e.what());
    std::abort();
  }
}

}  // namespace minimt_fuzz
