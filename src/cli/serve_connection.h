// minimt serve's connections: httplib parses each request, routes it and writes its answer; this
// server moves the bytes. httplib's own connection loop, per request, polls before every read and
// every write, asks the kernel for both addresses, sends an answer's headers and body as two
// packets, allocates a fresh 4 KiB buffer, and waits for a keep-alive connection's next request
// in 10 ms polls and 1 ms sleeps: 14 system calls a request, and two packets for the client to
// take (docs/performance.md, "minimt serve under load"). Here a request costs one poll, one recv
// and one send, and a stop wakes idle connections at once.
#pragma once

#include <httplib.h>

#include <cstddef>

namespace minimt::cli {

struct ConnectionLimits {
  int timeout_seconds = 5;  // a stalled read or write, and an idle keep-alive connection
  size_t requests_per_connection = 1000;
};

class ServeServer : public httplib::Server {
 public:
  explicit ServeServer(const ConnectionLimits& limits);
  ~ServeServer() override;
  ServeServer(const ServeServer&) = delete;
  ServeServer& operator=(const ServeServer&) = delete;

  // Stops accepting (httplib's stop) and closes the idle keep-alive connections at once. Every
  // request accepted is answered: one being read or answered, and one already sent on an
  // accepted connection (also one waiting for a free thread), with "Connection: close".
  // Safe from any thread, before listen too.
  void stop_serving();

 private:
  bool process_and_close_socket(int socket) override;

  const ConnectionLimits limits_;
  int stopping_ = -1;  // an eventfd, readable once stop_serving ran
};

}  // namespace minimt::cli
