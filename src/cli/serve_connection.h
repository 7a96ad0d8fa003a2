// minimt serve's connections: httplib parses each request, routes it and writes its answer; this
// server moves the bytes. httplib's own connection loop, per request, polls before every read and
// every write, asks the kernel for both addresses, sends an answer's headers and body as two
// packets, allocates a fresh 4 KiB buffer, and waits for a keep-alive connection's next request
// in 10 ms polls and 1 ms sleeps: 14 system calls a request, and two packets for the client to
// take (docs/performance.md, "minimt serve under load"). Here a request costs one poll, one recv
// and one send, and a stop wakes idle connections at once.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <string>

namespace minimt::cli {

// What a request may send besides its body: its request line and headers.
inline constexpr size_t kRequestHeadBytes = 64 * 1024;

struct ConnectionLimits {
  int timeout_seconds = 5;  // to send a whole request, to take an answer, to sit idle
  size_t requests_per_connection = 1000;
  size_t body_bytes = 1 << 20;  // the largest body; a request may send kRequestHeadBytes more
};

// A request refused while it was read: too slow (408) or too large (413); status 0: none.
struct ReadRefusal {
  int status = 0;
  std::string message;
  std::string field;
};

class ServeServer : public httplib::Server {
 public:
  // Why the request this thread is answering was refused as it was read (httplib then answers
  // 400 through the error handler, which may say this instead).
  static const ReadRefusal& read_refusal();

  explicit ServeServer(const ConnectionLimits& limits);
  ~ServeServer() override;
  ServeServer(const ServeServer&) = delete;
  ServeServer& operator=(const ServeServer&) = delete;

  // Stops accepting (httplib's stop: it does nothing before the server listens, so call it
  // once is_running()) and closes the idle keep-alive connections at once. Every request
  // accepted is answered, with "Connection: close": one being read or answered, and one already
  // sent on an accepted connection (also one waiting for a free thread). Safe from any thread.
  void stop_serving();

 private:
  bool process_and_close_socket(int socket) override;

  const ConnectionLimits limits_;
  int stopping_ = -1;  // an eventfd, readable once stop_serving ran: wakes the idle connections
  std::atomic<bool> stopped_{false};  // the same, for a look without a system call
};

}  // namespace minimt::cli
