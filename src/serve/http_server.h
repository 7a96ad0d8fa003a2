// HttpServer: minimt serve's connections, every one on one thread that waits on them all
// (epoll), so that a client that stalls or trickles costs a connection slot and a few bytes,
// never a thread: others are read and answered beside it. A whole request goes to the handler;
// its answer may come later from any thread (the translating ones), and is written by this
// thread. Time limits: a request must arrive whole within the timeout of its first byte, an
// answer be taken within the timeout, a kept-alive connection may sit idle that long. When every
// slot is taken, the connection nearest its time limit among those still reading a request (or
// idle) makes room for the new one.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "serve/http_message.h"

namespace minimt::serve {

struct ConnectionLimits {
  int timeout_seconds = 5;
  size_t requests_per_connection = 1000;
  size_t body_bytes = 1 << 20;  // the largest body; a request may send kRequestHeadBytes more
  size_t connections = 256;     // open at once
};

// Gives a request's answer; callable once, from any thread.
using Respond = std::function<void(HttpAnswer)>;
// Called on the server's thread for each whole request; must not wait for the work.
using Handler = std::function<void(HttpRequest, Respond)>;
// Told when a connection opens (+1) or closes (-1): a server's possible clients.
using ConnectionCount = std::function<void(int)>;

class HttpServer {
 public:
  HttpServer(const ConnectionLimits& limits, Handler handler, ConnectionCount count = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens (the system's largest backlog); returns the port (a free one for 0).
  // Throws Error when it cannot.
  int listen(const std::string& host, int port);
  // Serves until stop(): then no connection is accepted, idle ones close at once, and every
  // request already arriving is answered (with "Connection: close") before it returns.
  void run();
  // Safe from any thread, before or during run().
  void stop();

 private:
  struct Loop;
  std::unique_ptr<Loop> loop_;
};

}  // namespace minimt::serve
