// HttpServer (http_server.h): one epoll loop over the listening socket, the connections and an
// eventfd that brings answers (and the stop) from other threads.
#include "serve/http_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "minimt/base/error.h"
#include "serve/request_reader.h"

namespace minimt::serve {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 16 * 1024;
// After a connection's last answer, what the client still sends is read and dropped for a
// while: closing with unread bytes resets the connection, and the reset can destroy the answer
// before the client has read it.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 4 << 20;
// epoll's data for the two descriptors that are not connections.
constexpr uint64_t kListeningId = 0, kWakeId = 1;
// With every connection slot taken, one still reading a request (or idle) may make room for a
// new client once it has had this fraction of the timeout: 1/10.
constexpr int kEvictableAfter = 10;

enum class State {
  kReading,    // a request's bytes (or none yet: idle)
  kWorking,    // a whole request with the handler; nothing read meanwhile
  kWriting,    // its answer going out
  kLingering,  // the last answer sent: the client's leftovers read and dropped until it closes
};

struct Connection {
  Connection(int socket, uint64_t connection_id, size_t body_bytes)
      : fd(socket), id(connection_id), reader(body_bytes) {}
  const int fd;
  const uint64_t id;
  State state = State::kReading;
  std::string in;  // read and not yet parsed (a pipelined request's bytes among them)
  RequestReader reader;
  uint64_t timer_stamp = 0;  // the live timer's; older timers in the heap are stale
  Clock::time_point deadline = Clock::time_point::max();  // the live timer's
  uint32_t events = EPOLLIN;
  bool hung_up = false;        // the client is gone (seen while working): close once answered
  bool client_closes = false;  // the request asked for "Connection: close"
  bool head_only = false;      // a HEAD request: its answer's head only
  size_t answered = 0;
  std::string out_head, out_body;
  size_t out_sent = 0;  // of out_head, then out_body
  bool close_after = false;
  bool drop_at_once = false;  // no lingering: the client was too slow to send its request
  size_t lingered = 0;
};

struct Timer {
  Clock::time_point when;
  uint64_t id, stamp;
  bool operator>(const Timer& other) const { return when > other.when; }
};

// A refusal as an answer that ends the connection.
HttpAnswer refusal_answer(int status, const std::string& message, const std::string& field) {
  return error_answer(status, message, field, true);
}

}  // namespace

struct HttpServer::Loop {
  Loop(const ConnectionLimits& connection_limits, Handler request_handler, ConnectionCount counter)
      : limits(connection_limits),
        handler(std::move(request_handler)),
        count(std::move(counter)),
        timeout(std::chrono::seconds(connection_limits.timeout_seconds)) {
    terms.timeout_seconds = limits.timeout_seconds;
    terms.max_requests = limits.requests_per_connection;
    epoll = epoll_create1(EPOLL_CLOEXEC);
    wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll < 0 || wake < 0) throw Error("minimt serve: cannot create its event loop");
    add(wake, kWakeId, EPOLLIN);
  }
  ~Loop() {
    for (auto& entry : connections) close(entry.second->fd);
    if (listening >= 0) close(listening);
    close(wake);
    close(epoll);
  }

  const ConnectionLimits limits;
  const Handler handler;
  const ConnectionCount count;
  const Clock::duration timeout;
  KeepAliveTerms terms;
  int epoll = -1, wake = -1, listening = -1;
  bool accepting = false;                                     // the listening socket is watched
  Clock::time_point accept_retry = Clock::time_point::max();  // every slot taken: look again
  std::atomic<bool> stop_asked{false};
  bool stopping = false;  // seen by the loop
  uint64_t next_id = 2;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers;
  std::mutex answers_mutex;
  std::vector<std::pair<uint64_t, HttpAnswer>> answers;  // from any thread, for the loop

  void add(int fd, uint64_t id, uint32_t events) {
    epoll_event event{};
    event.events = events;
    event.data.u64 = id;
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0)
      throw Error("minimt serve: cannot watch a socket (" + std::string(strerror(errno)) + ")");
  }
  void watch(Connection& c, uint32_t events) {
    if (c.events == events || c.hung_up) return;
    epoll_event event{};
    event.events = events;
    event.data.u64 = c.id;
    epoll_ctl(epoll, EPOLL_CTL_MOD, c.fd, &event);
    c.events = events;
  }
  void arm(Connection& c, Clock::duration after) {
    c.deadline = Clock::now() + after;
    timers.push({c.deadline, c.id, ++c.timer_stamp});
  }
  void disarm(Connection& c) {
    ++c.timer_stamp;
    c.deadline = Clock::time_point::max();
  }

  void set_accepting(bool on) {
    if (listening < 0 || accepting == on) return;
    if (on) {
      add(listening, kListeningId, EPOLLIN);
    } else {
      epoll_ctl(epoll, EPOLL_CTL_DEL, listening, nullptr);
    }
    accepting = on;
  }

  void close_connection(Connection& c) {
    const uint64_t id = c.id;
    close(c.fd);  // also leaves the epoll set
    connections.erase(id);
    if (count) count(-1);
    if (!stopping) set_accepting(true);
  }

  // The reading (or idle) connection nearest its time limit makes room, once its request (or
  // idleness) is older than kEvictableAfter of the timeout: a burst of new clients does not cut
  // each other off, a crowd of stalled ones gives way within a fraction of the timeout. False
  // when none may go yet (accept_retry says when one may).
  bool evict_one() {
    Connection* oldest = nullptr;
    for (auto& entry : connections) {
      Connection& c = *entry.second;
      if (c.state == State::kReading && (!oldest || c.deadline < oldest->deadline)) oldest = &c;
    }
    if (!oldest) return false;  // every slot holds a request at work: back once one closes
    const Clock::time_point since = oldest->deadline - timeout;
    const Clock::time_point may_go = since + timeout / kEvictableAfter;
    if (Clock::now() < may_go) {
      accept_retry = may_go;
      return false;
    }
    close_connection(*oldest);
    return true;
  }

  // `all`: past the connection limit too (the backlog at a stop, which the system bounds).
  void accept_all(bool all = false) {
    while (accepting) {
      if (!all && connections.size() >= limits.connections && !evict_one()) {
        set_accepting(false);  // back once a connection closes, or at accept_retry
        return;
      }
      const int fd = accept4(listening, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if ((errno == EMFILE || errno == ENFILE) && !connections.empty())
          set_accepting(false);  // out of descriptors: back once a connection closes
        return;
      }
      const int yes = 1;  // an answer goes out in one piece or more: no Nagle delay
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
      const uint64_t id = next_id++;
      auto connection = std::make_unique<Connection>(fd, id, limits.body_bytes);
      try {
        add(fd, id, EPOLLIN);
      } catch (const Error&) {
        close(fd);
        continue;
      }
      arm(*connection, timeout);  // to send its first request's first byte
      connections.emplace(id, std::move(connection));
      if (count) count(+1);
    }
  }

  void on_readable(Connection& c) {
    char chunk[kReadChunk];
    const ssize_t got = recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (got <= 0) return close_connection(c);  // gone (or, lingering, done)
    if (c.state == State::kLingering) {
      c.lingered += static_cast<size_t>(got);
      if (c.lingered > kLingerBytes) close_connection(c);
      return;
    }
    if (!c.reader.started() && c.in.empty()) arm(c, timeout);  // the request's clock starts
    c.in.append(chunk, static_cast<size_t>(got));
    process(c);
  }

  // Reads what c.in holds: a step of the request, or the request handed to the handler.
  void process(Connection& c) {
    for (;;) {
      switch (c.reader.read(c.in)) {
        case RequestReader::Step::kNeedMore:
          return;
        case RequestReader::Step::kSendContinue: {
          static const char go_ahead[] = "HTTP/1.1 100 Continue\r\n\r\n";
          const ssize_t sent =
              send(c.fd, go_ahead, sizeof go_ahead - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
          if (sent != static_cast<ssize_t>(sizeof go_ahead - 1)) return close_connection(c);
          continue;
        }
        case RequestReader::Step::kRefused: {
          const ReadRefusal& why = c.reader.refusal();
          return answer(c, refusal_answer(why.status, why.message, why.field));
        }
        case RequestReader::Step::kRequest:
          return start_work(c, c.reader.take());
      }
    }
  }

  void start_work(Connection& c, HttpRequest request) {
    c.state = State::kWorking;
    disarm(c);
    watch(c, EPOLLRDHUP);  // nothing read meanwhile; a client that leaves is seen
    c.client_closes = !request.keep_alive;
    c.head_only = request.method == "HEAD";
    Respond respond = [this, id = c.id](HttpAnswer answer) {
      {
        std::lock_guard<std::mutex> lock(answers_mutex);
        answers.emplace_back(id, std::move(answer));
      }
      const uint64_t one = 1;
      [[maybe_unused]] const ssize_t written = ::write(wake, &one, sizeof one);
    };
    try {
      handler(std::move(request), respond);
    } catch (const std::exception& e) {
      respond(refusal_answer(500, std::string("the server failed: ") + e.what(), ""));
    }
  }

  // Starts writing `a` on c (the connection's last answer when it says so, the client asked, the
  // connection has had its requests, or the server stops).
  void answer(Connection& c, HttpAnswer a) {
    ++c.answered;
    a.close = a.close || c.client_closes || c.answered >= limits.requests_per_connection ||
              (stopping && c.in.empty());
    c.close_after = a.close;
    c.out_head = serialize_head(a, terms);
    c.out_body = c.head_only ? std::string() : std::move(a.body);
    c.out_sent = 0;
    c.head_only = false;
    c.state = State::kWriting;
    arm(c, timeout);  // to take the whole answer
    write_some(c);
  }

  void write_some(Connection& c) {
    for (;;) {
      const size_t head_left = c.out_sent < c.out_head.size() ? c.out_head.size() - c.out_sent : 0;
      const size_t body_done = c.out_sent - (c.out_head.size() - head_left);
      iovec parts[2];
      int count_parts = 0;
      if (head_left) parts[count_parts++] = {&c.out_head[c.out_sent], head_left};
      if (body_done < c.out_body.size())
        parts[count_parts++] = {&c.out_body[body_done], c.out_body.size() - body_done};
      if (count_parts == 0) return answer_sent(c);
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = static_cast<size_t>(count_parts);
      const ssize_t sent = sendmsg(c.fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent > 0) {
        c.out_sent += static_cast<size_t>(sent);
      } else if (sent < 0 && errno == EINTR) {
        continue;
      } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return watch(c, EPOLLOUT);
      } else {
        return close_connection(c);
      }
    }
  }

  void answer_sent(Connection& c) {
    std::string().swap(c.out_head);
    std::string().swap(c.out_body);
    if (c.hung_up) return close_connection(c);
    if (c.close_after && c.drop_at_once) return close_connection(c);
    if (c.close_after) {
      shutdown(c.fd, SHUT_WR);
      c.state = State::kLingering;
      arm(c, std::min<Clock::duration>(kLingerTime, timeout));
      return watch(c, EPOLLIN);
    }
    c.state = State::kReading;
    watch(c, EPOLLIN);
    arm(c, timeout);  // idle, or the next request's time if it is here already
    if (!c.in.empty()) process(c);
  }

  void on_event(uint64_t id, uint32_t events) {
    const auto found = connections.find(id);
    if (found == connections.end()) return;
    Connection& c = *found->second;
    if (c.state == State::kWorking) {
      if (events & (EPOLLHUP | EPOLLERR)) {  // gone: close once the answer comes
        epoll_ctl(epoll, EPOLL_CTL_DEL, c.fd, nullptr);
        c.hung_up = true;
      } else {  // done sending (a half close): it still takes its answer, the last
        watch(c, 0);
        c.client_closes = true;
      }
      return;
    }
    if (events & EPOLLOUT && c.state == State::kWriting) return write_some(c);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) on_readable(c);
  }

  void take_answers() {
    uint64_t ignored;
    [[maybe_unused]] const ssize_t got = ::read(wake, &ignored, sizeof ignored);
    std::vector<std::pair<uint64_t, HttpAnswer>> ready;
    {
      std::lock_guard<std::mutex> lock(answers_mutex);
      ready.swap(answers);
    }
    for (auto& [id, a] : ready) {
      const auto found = connections.find(id);
      if (found == connections.end()) continue;
      answer(*found->second, std::move(a));
    }
  }

  void expire_timers() {
    const auto now = Clock::now();
    while (!timers.empty() && timers.top().when <= now) {
      const Timer timer = timers.top();
      timers.pop();
      const auto found = connections.find(timer.id);
      if (found == connections.end() || found->second->timer_stamp != timer.stamp) continue;
      Connection& c = *found->second;
      if (c.state == State::kReading && c.reader.started()) {
        c.drop_at_once = true;
        answer(c, refusal_answer(408,
                                 "the request did not arrive whole within " +
                                     std::to_string(limits.timeout_seconds) + " s (--timeout)",
                                 ""));
      } else {
        close_connection(c);  // idle, too slow to take its answer, or done lingering
      }
    }
  }

  int next_wait_ms() {
    int accept_ms = -1;
    if (accept_retry != Clock::time_point::max()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(accept_retry - Clock::now());
      accept_ms = static_cast<int>(std::max<long long>(0, left.count()) + 1);
    }
    while (!timers.empty()) {
      const Timer& timer = timers.top();
      const auto found = connections.find(timer.id);
      if (found != connections.end() && found->second->timer_stamp == timer.stamp) break;
      timers.pop();  // stale
    }
    if (timers.empty()) return accept_ms;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(timers.top().when - Clock::now());
    const int timer_ms = static_cast<int>(std::max<long long>(0, left.count()) + 1);
    return accept_ms < 0 ? timer_ms : std::min(timer_ms, accept_ms);
  }

  void begin_stopping() {
    // Connections the system accepted before the stop are answered too (each request it
    // carries gets its answer, the connection's last); later ones are refused at once.
    accept_retry = Clock::time_point::max();
    set_accepting(true);
    accept_all(true);
    stopping = true;
    set_accepting(false);
    close(listening);
    listening = -1;
    std::vector<Connection*> idle;
    for (auto& entry : connections) {
      Connection& c = *entry.second;
      char byte;  // a request sent and not yet read is answered, not dropped
      if (c.state == State::kReading && !c.reader.started() && c.in.empty() &&
          recv(c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0)
        idle.push_back(&c);
    }
    for (Connection* c : idle) close_connection(*c);
  }

  void run() {
    set_accepting(true);
    std::vector<epoll_event> events(256);
    while (!stopping || !connections.empty()) {
      const int ready =
          epoll_wait(epoll, events.data(), static_cast<int>(events.size()), next_wait_ms());
      if (ready < 0 && errno != EINTR) throw Error("minimt serve: epoll_wait failed");
      bool woken = false;
      for (int i = 0; i < ready; ++i) {
        const uint64_t id = events[i].data.u64;
        if (id == kWakeId) {
          woken = true;
        } else if (id == kListeningId) {
          accept_all();
        } else {
          on_event(id, events[i].events);
        }
      }
      if (woken) take_answers();
      if (stop_asked && !stopping) begin_stopping();
      expire_timers();
      if (!stopping && Clock::now() >= accept_retry) {
        accept_retry = Clock::time_point::max();
        set_accepting(true);
        accept_all();
      }
    }
  }
};

HttpServer::HttpServer(const ConnectionLimits& limits, Handler handler, ConnectionCount count)
    : loop_(std::make_unique<Loop>(limits, std::move(handler), std::move(count))) {}

HttpServer::~HttpServer() = default;

int HttpServer::listen(const std::string& host, int port) {
  const std::string where = host + " port " + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found)
    throw Error("minimt serve: cannot listen on " + where + " (not an address of this machine)");
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;  // restarts at once; the port stays this server's alone (no SO_REUSEPORT)
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0)
    throw Error("minimt serve: cannot listen on " + where +
                " (in use, or not an address of this machine)");
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  loop_->listening = fd;
  return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

void HttpServer::run() {
  if (loop_->listening < 0) throw Error("minimt serve: run() before listen()");
  loop_->run();
}

void HttpServer::stop() {
  loop_->stop_asked = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(loop_->wake, &one, sizeof one);
}

}  // namespace minimt::serve
