// minimt_load_client: the load generator of tools/serve/load_test.py. One thread keeps CLIENTS
// keep-alive HTTP/1.1 connections busy, each sending the next request as soon as its previous
// answer is in, so that what is measured is the server, not the client (64 Python threads cost
// about as much CPU as the server they loaded). A request is sent the moment its connection is
// free; epoll reports only the connections with something to read (or, rarely, to finish
// sending).
//   minimt_load_client HOST PORT PATH CLIENTS < bodies > answers
// stdin: one JSON request body per line, each POSTed to PATH once. stdout: for each body in
// input order, "STATUS MICROSECONDS BYTES\n" and then BYTES bytes of the answer's body
// (STATUS 0: no HTTP answer, the body says why). Exits 1 when a connection cannot be opened.
// POSIX sockets and the C++ library only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTimeoutMs = 120000;  // no progress on any connection for this long: give up

struct Answer {
  int status = -1;  // -1: not answered yet; 0: no HTTP answer
  long long microseconds = 0;
  std::string body;
};

struct Connection {
  int fd = -1;
  long request = -1;    // the body being answered, -1: none
  bool reused = false;  // the request went on a connection that answered before
  std::string out;
  size_t sent = 0;
  std::string in;
  Clock::time_point start;
};

int open_connection(const sockaddr_storage& address, socklen_t length) {
  const int fd = socket(address.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), length) != 0) {
    close(fd);
    return -1;
  }
  const int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);  // the request in one segment
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// A header's value in `head` (the status line and headers), or "" if absent; names compared
// without case.
std::string header(const std::string& head, const std::string& name) {
  size_t at = head.find("\r\n");
  while (at != std::string::npos && at + 2 < head.size()) {
    const size_t begin = at + 2, end = head.find("\r\n", begin);
    const std::string line = head.substr(begin, end - begin);
    const size_t colon = line.find(':');
    if (colon == name.size() && strncasecmp(line.c_str(), name.c_str(), colon) == 0) {
      size_t value = colon + 1;
      while (value < line.size() && line[value] == ' ') ++value;
      return line.substr(value);
    }
    at = end;
  }
  return "";
}

// Whether `c.in` holds a whole answer; if so fills `answer` and says whether the server closes.
bool complete(const Connection& c, Answer& answer, bool& closes) {
  const size_t head_end = c.in.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  const std::string head = c.in.substr(0, head_end);
  const std::string length = header(head, "Content-Length");
  if (length.empty()) return false;  // read until the server closes (see the caller)
  const size_t body = head_end + 4, size = std::strtoull(length.c_str(), nullptr, 10);
  if (c.in.size() < body + size) return false;
  answer.status = std::atoi(head.c_str() + head.find(' ') + 1);
  answer.body = c.in.substr(body, size);
  closes = strcasecmp(header(head, "Connection").c_str(), "close") == 0;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: minimt_load_client HOST PORT PATH CLIENTS < bodies > answers\n");
    return 2;
  }
  const std::string host = argv[1], port = argv[2], path = argv[3];
  const int clients = std::max(1, std::atoi(argv[4]));

  std::vector<std::string> bodies;
  for (std::string line; std::getline(std::cin, line);) bodies.push_back(line);

  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
    fprintf(stderr, "minimt_load_client: cannot resolve %s:%s\n", host.c_str(), port.c_str());
    return 1;
  }
  sockaddr_storage address{};
  const socklen_t address_length = found->ai_addrlen;
  memcpy(&address, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);

  const std::string head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port +
                           "\r\nContent-Type: application/json\r\nContent-Length: ";
  std::vector<Answer> answers(bodies.size());
  std::vector<Connection> connections(std::min<size_t>(clients, bodies.size()));
  size_t next = 0, answered = 0;

  const int events = epoll_create1(0);
  if (events < 0) {
    fprintf(stderr, "minimt_load_client: epoll_create1: %s\n", strerror(errno));
    return 1;
  }
  // Watched for reading, and for writing while a request is not all sent.
  auto watch = [&](Connection& c, size_t index, int operation) {
    epoll_event event{};
    event.events = EPOLLIN | (c.sent < c.out.size() ? uint32_t{EPOLLOUT} : 0);
    event.data.u64 = index;
    epoll_ctl(events, operation, c.fd, &event);
  };
  auto send_rest = [&](Connection& c) {  // false: the connection failed
    while (c.sent < c.out.size()) {
      const ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN;
      c.sent += static_cast<size_t>(n);
    }
    return true;
  };
  auto connect_again = [&](Connection& c, size_t index) {
    close(c.fd);  // also leaves the epoll set
    c.fd = open_connection(address, address_length);
    c.out.clear();
    c.sent = 0;
    if (c.fd >= 0) watch(c, index, EPOLL_CTL_ADD);
  };
  // Sends request `request` on connection `index` at once; false: the connection failed.
  auto start_request = [&](size_t index, long request, bool reused) {
    Connection& c = connections[index];
    c.request = request;
    c.reused = reused;
    c.out = head + std::to_string(bodies[request].size()) + "\r\n\r\n" + bodies[request];
    c.sent = 0;
    c.in.clear();
    c.start = Clock::now();
    if (!send_rest(c)) return false;
    if (c.sent < c.out.size()) watch(c, index, EPOLL_CTL_MOD);  // the rest when it can
    return true;
  };
  auto finish = [&](Connection& c, Answer answer) {
    answer.microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.start).count();
    answers[c.request] = std::move(answer);
    c.request = -1;
    ++answered;
  };
  // The connection failed or the server closed it. A keep-alive connection the server closed
  // before answering anything of this request gets the request once more.
  auto failed = [&](size_t index) {
    Connection& c = connections[index];
    const bool retry = c.reused && c.in.empty();
    const std::string why = c.in.empty() ? "the connection closed without an answer"
                                         : "the connection closed in the middle of an answer";
    connect_again(c, index);
    if (retry && c.fd >= 0 && start_request(index, c.request, false)) return;
    finish(c, {0, 0, why});
    if (next < bodies.size() && c.fd >= 0) {
      start_request(index, static_cast<long>(next++), false);  // a failure: epoll reports it
    } else if (c.fd >= 0) {
      close(c.fd);
      c.fd = -1;
    }
  };
  for (size_t i = 0; i < connections.size(); ++i) {
    Connection& c = connections[i];
    c.fd = open_connection(address, address_length);
    if (c.fd < 0) {
      fprintf(stderr, "minimt_load_client: cannot connect to %s:%s: %s\n", host.c_str(),
              port.c_str(), strerror(errno));
      return 1;
    }
    watch(c, i, EPOLL_CTL_ADD);
  }
  for (size_t i = 0; i < connections.size(); ++i)
    if (!start_request(i, static_cast<long>(next++), false)) failed(i);

  std::vector<epoll_event> ready(connections.size());
  std::vector<char> buffer(1 << 16);
  while (answered < bodies.size()) {
    const int count = epoll_wait(events, ready.data(), static_cast<int>(ready.size()), kTimeoutMs);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) {
      for (Connection& c : connections)
        if (c.request >= 0) finish(c, {0, 0, "no answer within the client's timeout"});
      break;
    }
    for (int e = 0; e < count; ++e) {
      const size_t index = ready[e].data.u64;
      Connection& c = connections[index];
      if (c.request < 0) continue;
      if (c.sent < c.out.size()) {
        if (!send_rest(c)) {
          failed(index);
        } else if (c.sent == c.out.size()) {
          watch(c, index, EPOLL_CTL_MOD);  // all sent: reading only
        }
        continue;
      }
      const ssize_t n = recv(c.fd, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EAGAIN) continue;
      if (n <= 0) {
        failed(index);
        continue;
      }
      c.in.append(buffer.data(), static_cast<size_t>(n));
      Answer answer;
      bool closes = false;
      if (!complete(c, answer, closes)) continue;
      finish(c, std::move(answer));
      if (next == bodies.size()) {  // nothing left to send on it: closed, as a client leaves
        close(c.fd);
        c.fd = -1;
        continue;
      }
      if (closes) connect_again(c, index);
      if (c.fd >= 0 && !start_request(index, static_cast<long>(next++), true)) failed(index);
    }
  }
  close(events);
  for (Connection& c : connections)
    if (c.fd >= 0) close(c.fd);
  for (const Answer& a : answers) {
    const std::string body = a.status < 0 ? "never sent" : a.body;
    std::cout << std::max(a.status, 0) << ' ' << a.microseconds << ' ' << body.size() << '\n'
              << body;
  }
  std::cout.flush();
  return 0;
}
