// ServeServer (serve_connection.h): httplib's server with a connection loop of its own; the
// requests read through a buffer that lives as long as the connection, the answer gathered and
// sent in one piece.
#include "cli/serve_connection.h"

#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

namespace minimt::cli {
namespace {

// An answer larger than this goes out as it is written rather than gathered first.
constexpr size_t kGatherBytes = 64 * 1024;
constexpr size_t kReadBufferBytes = 16 * 1024;

// The address a socket has at `which` end (getpeername or getsockname), numeric.
template <typename Lookup>
void numeric_address(int socket, Lookup lookup, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  ip.clear();
  port = 0;
  if (lookup(socket, reinterpret_cast<sockaddr*>(&address), &length) != 0) return;
  char host[NI_MAXHOST], service[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&address), length, host, sizeof host, service,
                  sizeof service, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return;
  ip = host;
  port = std::stoi(service);
}

// One connection's bytes. Reads come from a buffer refilled by one recv; writes are gathered
// until the answer is complete (flush), or sent at once past kGatherBytes. Before a read waits
// for the client, what was written goes out (an answer to "Expect: 100-continue" must reach the
// client before it sends the body). Timeouts are the socket's (SO_RCVTIMEO, SO_SNDTIMEO).
class ConnectionStream : public httplib::Stream {
 public:
  ConnectionStream(int socket, int timeout_seconds)
      : socket_(socket), timeout_ms_(timeout_seconds * 1000), in_(kReadBufferBytes) {
    timeval timeout{timeout_seconds, 0};
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  }

  enum class Next { kRequest, kLastRequest, kNone };
  // Waits up to `timeout_ms` for the next request's first bytes. Once `stopping` is readable,
  // a request already here (sent, or waiting with its connection for a free thread) is the
  // connection's last; a quiet connection is closed at once.
  Next next_request(int stopping, int timeout_ms) {
    if (begin_ < end_) return Next::kRequest;  // pipelined: already read
    pollfd fds[2] = {{socket_, POLLIN, 0}, {stopping, POLLIN, 0}};
    int ready;
    do {
      ready = poll(fds, 2, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready <= 0) return Next::kNone;  // quiet for the whole timeout
    if (fds[1].revents == 0) return Next::kRequest;
    return fds[0].revents != 0 ? Next::kLastRequest : Next::kNone;
  }

  // Sends what was gathered; false when the client is gone or stalled past the timeout.
  bool flush() {
    const bool sent = send_all(out_.data(), out_.size());
    out_.clear();
    return sent;
  }

  bool is_readable() const override {
    if (begin_ < end_) return true;
    pollfd fd{socket_, POLLIN, 0};
    return poll(&fd, 1, timeout_ms_) > 0;
  }
  bool is_writable() const override { return !broken_; }

  ssize_t read(char* data, size_t size) override {
    if (begin_ == end_) {
      if (!flush()) return -1;
      const ssize_t got = receive(in_.data(), in_.size());
      if (got <= 0) return got;
      begin_ = 0;
      end_ = static_cast<size_t>(got);
    }
    const size_t count = std::min(size, end_ - begin_);
    std::copy(in_.begin() + static_cast<ptrdiff_t>(begin_),
              in_.begin() + static_cast<ptrdiff_t>(begin_ + count), data);
    begin_ += count;
    return static_cast<ssize_t>(count);
  }

  ssize_t write(const char* data, size_t size) override {
    if (broken_) return -1;
    if (out_.size() + size <= kGatherBytes) {
      out_.append(data, size);
    } else if (!flush() || !send_all(data, size)) {
      return -1;
    }
    return static_cast<ssize_t>(size);
  }

  // Asked for every request; a connection's addresses do not change.
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    if (remote_.port < 0) numeric_address(socket_, getpeername, remote_.ip, remote_.port);
    ip = remote_.ip;
    port = remote_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    if (local_.port < 0) numeric_address(socket_, getsockname, local_.ip, local_.port);
    ip = local_.ip;
    port = local_.port;
  }
  int socket() const override { return socket_; }

 private:
  ssize_t receive(char* data, size_t size) {
    ssize_t got;
    do {
      got = recv(socket_, data, size, 0);
    } while (got < 0 && errno == EINTR);
    return got;  // < 0 also when the read timed out (EAGAIN)
  }

  bool send_all(const char* data, size_t size) {
    while (size > 0 && !broken_) {
      const ssize_t sent = send(socket_, data, size, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) {
        broken_ = true;  // gone, or stalled past the timeout (EAGAIN)
        break;
      }
      data += sent;
      size -= static_cast<size_t>(sent);
    }
    return !broken_;
  }

  const int socket_;
  const int timeout_ms_;
  std::vector<char> in_;
  size_t begin_ = 0, end_ = 0;  // the unread part of in_
  std::string out_;
  bool broken_ = false;
  struct Address {
    std::string ip;
    int port = -1;  // -1: not asked yet
  };
  mutable Address remote_, local_;
};

}  // namespace

ServeServer::ServeServer(const ConnectionLimits& limits)
    : limits_(limits), stopping_(eventfd(0, EFD_CLOEXEC)) {
  if (stopping_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  // What httplib's answers say in their Keep-Alive header: this loop's limits.
  set_keep_alive_timeout(limits.timeout_seconds);
  set_keep_alive_max_count(limits.requests_per_connection);
}

ServeServer::~ServeServer() {
  close(stopping_);
}

void ServeServer::stop_serving() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(stopping_, &one, sizeof one);
  stop();
}

bool ServeServer::process_and_close_socket(int socket) {
  ConnectionStream stream(socket, limits_.timeout_seconds);
  bool ok = false;
  for (size_t left = limits_.requests_per_connection; left > 0; --left) {
    const auto next = stream.next_request(stopping_, limits_.timeout_seconds * 1000);
    if (next == ConnectionStream::Next::kNone) break;
    // The last request's answer says "Connection: close".
    const bool last = left == 1 || next == ConnectionStream::Next::kLastRequest;
    bool closed = false;  // the client asked to close (Connection: close, HTTP/1.0)
    ok = process_request(stream, last, closed, nullptr);
    ok = stream.flush() && ok;
    if (!ok || closed || last) break;
  }
  shutdown(socket, SHUT_RDWR);
  close(socket);
  return ok;
}

}  // namespace minimt::cli
