// HttpServer (http_server.h): one epoll loop over the listening socket, the connections and an
// eventfd that brings answers (and the stop) from other threads.
#include "serve/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "minimt/base/error.h"
#include "serve/connection.h"
#include "serve/listening_socket.h"

namespace minimt::serve {
namespace {

// epoll's data for the two descriptors that are not connections.
constexpr uint64_t kListeningId = 0, kWakeId = 1;
// With every connection slot taken, one still reading a request (or idle) may make room for a
// new client once it has had this fraction of the timeout: 1/10.
constexpr int kEvictableAfter = 10;

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
  Connections connections;
  ConnectionTimers timers;
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
  void arm(Connection& c, Clock::duration after) { timers.arm(c, after); }
  void disarm(Connection& c) { timers.disarm(c); }

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
    switch (c.send_pending()) {
      case SendStep::kSent:
        return answer_sent(c);
      case SendStep::kBlocked:
        return watch(c, EPOLLOUT);
      case SendStep::kFailed:
        return close_connection(c);
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
    while (Connection* expired = timers.pop_expired(now, connections)) {
      Connection& c = *expired;
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

  // epoll_wait's time limit: until the nearest timer or accept_retry (-1: none), rounded up.
  int next_wait_ms() {
    Clock::duration left = timers.until_next(connections);
    if (accept_retry != Clock::time_point::max())
      left = std::min(left, accept_retry - Clock::now());
    if (left == Clock::duration::max()) return -1;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::max<long long>(0, ms) + 1);
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
  const ListeningSocket socket = open_listening_socket(host, port);
  loop_->listening = socket.fd;
  return socket.port;
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
