// One client connection of HttpServer's loop: its state, what it has read and has yet to send,
// and its timer's bookkeeping; the loop (http_server.cpp) moves it from state to state.
#pragma once

#include <sys/epoll.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "serve/request_reader.h"

namespace minimt::serve {

using Clock = std::chrono::steady_clock;

inline constexpr size_t kReadChunk = 16 * 1024;
// After a connection's last answer, what the client still sends is read and dropped for a
// while: closing with unread bytes resets the connection, and the reset can destroy the answer
// before the client has read it.
inline constexpr auto kLingerTime = std::chrono::seconds(2);
inline constexpr size_t kLingerBytes = 4 << 20;

enum class SendStep {
  kSent,     // all of it
  kBlocked,  // the socket's buffer is full: wait until it is writable
  kFailed,   // the client is gone
};

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

  // Sends what is left of out_head and out_body, as far as the socket takes it.
  SendStep send_pending();
};

using Connections = std::unordered_map<uint64_t, std::unique_ptr<Connection>>;

// Each connection's one live time limit, in a heap ordered by time; a limit set again leaves the
// old one in the heap, stale (its stamp is older than the connection's), skipped when reached.
class ConnectionTimers {
 public:
  void arm(Connection& c, Clock::duration after);  // c's limit: `after` from now
  void disarm(Connection& c);                      // none
  // The connection whose live limit is past at `now`, or null when none is (yet).
  Connection* pop_expired(Clock::time_point now, const Connections& connections);
  // The time until the nearest live limit; max() when there is none.
  Clock::duration until_next(const Connections& connections);

 private:
  struct Timer {
    Clock::time_point when;
    uint64_t id, stamp;
    bool operator>(const Timer& other) const { return when > other.when; }
  };
  bool live(const Timer& timer, const Connections& connections) const;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> heap_;
};

}  // namespace minimt::serve
