// minimt serve's stop: SIGTERM or SIGINT stops the server (serve/http_server.h), which then
// answers every request it accepted.
#pragma once

#include <signal.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "serve/http_server.h"

namespace minimt::cli {

// SIGTERM and SIGINT, received by one thread of their own (blocked in every other), stop the
// server. Made before any other thread, so that each inherits the mask; the server is named
// once it exists (a signal before that stops it then). They stay blocked after it: the process
// is ending, and a second signal must not kill it while it answers.
class StopOnSignal {
 public:
  StopOnSignal();
  // The server a signal stops from now on; nullptr before it goes away.
  void stops(serve::HttpServer* server);
  ~StopOnSignal();

 private:
  sigset_t signals_;
  std::atomic<bool> done_{false};
  std::mutex mutex_;
  serve::HttpServer* server_ = nullptr;
  std::thread watcher_;
};

}  // namespace minimt::cli
