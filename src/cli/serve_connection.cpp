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
#include <chrono>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "cli/serve_json.h"

namespace minimt::cli {
namespace {

// An answer larger than this goes out as it is written rather than gathered first.
constexpr size_t kGatherBytes = 64 * 1024;
constexpr size_t kReadBufferBytes = 16 * 1024;

// The address of one end of `socket`, numeric: the peer's (`lookup` getpeername) or its own
// (getsockname).
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

using Clock = std::chrono::steady_clock;

// Set by a handler on the connection's thread: the answer is the connection's last.
thread_local bool close_after_answer = false;
// Why the connection's current request was refused while it was read.
thread_local ReadRefusal refusal;

// Waits for `events` on `socket` until `deadline`; false when it passed first.
bool wait_for(int socket, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd fd{socket, events, 0};
    const int ready = poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

// One connection's bytes. Reads come from a buffer refilled by one recv; writes are gathered
// until the answer is complete (flush), or sent at once past kGatherBytes. Before a read waits
// for the client, what was written goes out (an answer to "Expect: 100-continue" must reach the
// client before it sends the body). A request must arrive whole within the timeout, and an
// answer be taken within it: a client trickling a byte at a time holds a thread no longer than
// one that stalls.
class ConnectionStream : public httplib::Stream {
 public:
  ConnectionStream(int socket, const ConnectionLimits& limits)
      : socket_(socket),
        timeout_(std::chrono::seconds(limits.timeout_seconds)),
        request_bytes_(limits.body_bytes + kRequestHeadBytes),
        in_(kReadBufferBytes) {}

  enum class Next { kRequest, kLastRequest, kNone };
  // Waits up to the timeout for the next request's first bytes, and starts its clock and count.
  // Once `stopped`, a request already here (sent, or waiting with its connection for a free
  // thread, or read with the one before) is the connection's last; a quiet connection is closed
  // at once (`stopping`, an eventfd readable from then on, wakes the wait).
  Next next_request(int stopping, const std::atomic<bool>& stopped) {
    Next next = Next::kRequest;
    if (begin_ < end_) {  // read with the request before (pipelined)
      if (stopped) next = Next::kLastRequest;
    } else {
      pollfd fds[2] = {{socket_, POLLIN, 0}, {stopping, POLLIN, 0}};
      const int timeout_ms =
          static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(timeout_).count());
      int ready;
      do {
        ready = poll(fds, 2, timeout_ms);
      } while (ready < 0 && errno == EINTR);
      if (ready <= 0) return Next::kNone;  // quiet for the whole timeout
      if (fds[1].revents != 0) next = fds[0].revents != 0 ? Next::kLastRequest : Next::kNone;
    }
    read_deadline_ = Clock::now() + timeout_;
    request_read_ = 0;
    return next;
  }

  // Sends what was gathered; false when the client is gone or has not taken it in time.
  bool flush() {
    const bool sent = send_all(out_.data(), out_.size());
    out_.clear();
    return sent;
  }

  // (httplib's server does not ask; read() is what waits.)
  bool is_readable() const override {
    return begin_ < end_ || wait_for(socket_, POLLIN, read_deadline_);
  }
  bool is_writable() const override { return !broken_; }
  // The request did not arrive whole within the timeout (`late`), or was larger than a request
  // may be: httplib answers it 400 (the error handler words it from read_refusal), and that
  // answer is the connection's last, for whatever comes next is not a request.
  void refuse(bool late) {
    close_after_answer = true;
    const long long seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout_).count();
    refusal =
        late ? ReadRefusal{408,
                           "the request did not arrive whole within " + std::to_string(seconds) +
                               " s (--timeout)",
                           ""}
             : ReadRefusal{413,
                           "the request is larger than " + std::to_string(request_bytes_) +
                               " bytes (--max-body-bytes and " +
                               std::to_string(kRequestHeadBytes / 1024) + " KiB for its headers)",
                           "body"};
  }

  ssize_t read(char* data, size_t size) override {
    if (begin_ == end_) {
      if (!flush()) return -1;
      const ssize_t got = receive(in_.data(), in_.size());
      if (got <= 0) return got;
      begin_ = 0;
      end_ = static_cast<size_t>(got);
    }
    const size_t count = std::min(size, end_ - begin_);
    request_read_ += count;
    if (request_read_ > request_bytes_) {  // headers without end, a body past its length
      refuse(false);
      return -1;
    }
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
  // What is there, or what comes before the request's deadline; < 0 past it.
  ssize_t receive(char* data, size_t size) {
    for (;;) {
      // Checked before every recv: a client that keeps the socket full never waits, and must
      // still finish in time.
      if (Clock::now() >= read_deadline_) {
        refuse(true);
        return -1;
      }
      const ssize_t got = recv(socket_, data, size, MSG_DONTWAIT);
      if (got >= 0) return got;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
      if (!wait_for(socket_, POLLIN, read_deadline_)) {
        refuse(true);
        return -1;
      }
    }
  }

  // Everything, taken by the client within the timeout of the first send.
  bool send_all(const char* data, size_t size) {
    const Clock::time_point deadline = Clock::now() + timeout_;
    while (size > 0 && !broken_) {
      const ssize_t sent = send(socket_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent > 0) {
        data += sent;
        size -= static_cast<size_t>(sent);
      } else if (sent < 0 && errno == EINTR) {
        continue;
      } else if (sent == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) ||
                 !wait_for(socket_, POLLOUT, deadline)) {
        broken_ = true;  // gone, or too slow to take it
      }
    }
    return !broken_;
  }

  const int socket_;
  const Clock::duration timeout_;
  const size_t request_bytes_;
  Clock::time_point read_deadline_ = Clock::now();
  size_t request_read_ = 0;  // bytes of the current request handed to httplib
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
  // A body is read by its Content-Length only: httplib would read a chunked one without the
  // body limit, and one without a length until the client closes (which a client waiting for
  // its answer never does). Refused before any of it is read; what is left of it on the
  // connection is no request, so the connection closes after the answer.
  set_pre_routing_handler([](const httplib::Request& request, httplib::Response& response) {
    const bool has_body =
        request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
    if (!request.has_header("Transfer-Encoding") &&
        (!has_body || request.has_header("Content-Length")))
      return httplib::Server::HandlerResponse::Unhandled;
    close_after_answer = true;
    response.status = 411;
    response.set_content(error_json("send the body with a Content-Length header (a chunked "
                                    "body, or one without a length, is not read)",
                                    "body"),
                         "application/json");
    return httplib::Server::HandlerResponse::Handled;
  });
  // An answer written once the server is stopping, or after such a refusal, is the
  // connection's last, and says so.
  set_post_routing_handler([this](const httplib::Request&, httplib::Response& response) {
    if (!stopped_ && !close_after_answer) return;
    response.headers.erase("Keep-Alive");
    response.headers.erase("Connection");  // httplib's own "close" for a last request
    response.set_header("Connection", "close");
  });
}

ServeServer::~ServeServer() {
  close(stopping_);
}

const ReadRefusal& ServeServer::read_refusal() {
  return refusal;
}

void ServeServer::stop_serving() {
  stopped_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(stopping_, &one, sizeof one);
  stop();
}

bool ServeServer::process_and_close_socket(int socket) {
  struct Closed {  // however the loop ends
    int socket;
    ~Closed() {
      shutdown(socket, SHUT_RDWR);
      close(socket);
    }
  } closed_at_end{socket};
  ConnectionStream stream(socket, limits_);
  bool ok = false;
  for (size_t left = limits_.requests_per_connection; left > 0; --left) {
    const auto next = stream.next_request(stopping_, stopped_);
    if (next == ConnectionStream::Next::kNone) break;
    // The last request's answer says "Connection: close".
    const bool last = left == 1 || next == ConnectionStream::Next::kLastRequest;
    bool closed = false;  // the client asked to close (Connection: close, HTTP/1.0)
    close_after_answer = false;
    refusal = {};
    ok = process_request(stream, last, closed, nullptr);
    ok = stream.flush() && ok;
    if (!ok || closed || last || stopped_ || close_after_answer) break;
  }
  return ok;
}

}  // namespace minimt::cli
