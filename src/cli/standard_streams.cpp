#include "cli/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "minimt/base/error.h"

namespace minimt::cli {

void hold_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free number, which is this one (the lower ones are held).
    const int held = ::open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (held >= 0 && held != fd) ::close(held);
  }
  std::signal(SIGXFSZ, SIG_IGN);
}

void check_standard_output() {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  const int error = errno;
  if (failed)
    throw IoError(std::string("cannot write standard output") +
                  (error ? std::string(": ") + std::strerror(error) : ""));
}

}  // namespace minimt::cli
