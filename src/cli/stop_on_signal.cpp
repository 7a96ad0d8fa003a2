// StopOnSignal (stop_on_signal.h).
#include "cli/stop_on_signal.h"

#include <chrono>
#include <cstdio>

namespace minimt::cli {

StopOnSignal::StopOnSignal() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  watcher_ = std::thread([this] {
    int received = 0;
    sigwait(&signals_, &received);
    if (done_) return;
    fprintf(stderr, "minimt serve: stopping: answering the requests accepted\n");
    for (;; std::this_thread::sleep_for(std::chrono::milliseconds(10))) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_) return;
      if (server_) return server_->stop();
    }
  });
}

void StopOnSignal::stops(serve::HttpServer* server) {
  std::lock_guard<std::mutex> lock(mutex_);
  server_ = server;
}

StopOnSignal::~StopOnSignal() {
  done_ = true;
  pthread_kill(watcher_.native_handle(), SIGTERM);  // wakes it if no signal did
  watcher_.join();
}

}  // namespace minimt::cli
