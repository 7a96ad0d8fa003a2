// The server's listening socket: bound to HOST and PORT, non-blocking, with the system's largest
// backlog.
#pragma once

#include <string>

namespace minimt::serve {

struct ListeningSocket {
  int fd = -1;
  int port = 0;  // the port bound (a free one when 0 was asked)
};

// Throws Error naming the address when no address of HOST binds.
ListeningSocket open_listening_socket(const std::string& host, int port);

}  // namespace minimt::serve
