// Connection::send_pending (connection.h): the answer's head and body in one sendmsg where the
// socket takes them, never blocking.
#include "serve/connection.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>

namespace minimt::serve {

SendStep Connection::send_pending() {
  for (;;) {
    const size_t head_left = out_sent < out_head.size() ? out_head.size() - out_sent : 0;
    const size_t body_done = out_sent - (out_head.size() - head_left);
    iovec parts[2];
    int count_parts = 0;
    if (head_left) parts[count_parts++] = {&out_head[out_sent], head_left};
    if (body_done < out_body.size())
      parts[count_parts++] = {&out_body[body_done], out_body.size() - body_done};
    if (count_parts == 0) return SendStep::kSent;
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = static_cast<size_t>(count_parts);
    const ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent > 0) {
      out_sent += static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return SendStep::kBlocked;
    } else {
      return SendStep::kFailed;
    }
  }
}

void ConnectionTimers::arm(Connection& c, Clock::duration after) {
  c.deadline = Clock::now() + after;
  heap_.push({c.deadline, c.id, ++c.timer_stamp});
}

void ConnectionTimers::disarm(Connection& c) {
  ++c.timer_stamp;
  c.deadline = Clock::time_point::max();
}

bool ConnectionTimers::live(const Timer& timer, const Connections& connections) const {
  const auto found = connections.find(timer.id);
  return found != connections.end() && found->second->timer_stamp == timer.stamp;
}

Connection* ConnectionTimers::pop_expired(Clock::time_point now, const Connections& connections) {
  while (!heap_.empty() && heap_.top().when <= now) {
    const Timer timer = heap_.top();
    heap_.pop();
    if (live(timer, connections)) return connections.find(timer.id)->second.get();
  }
  return nullptr;
}

Clock::duration ConnectionTimers::until_next(const Connections& connections) {
  while (!heap_.empty() && !live(heap_.top(), connections)) heap_.pop();  // stale
  return heap_.empty() ? Clock::duration::max() : heap_.top().when - Clock::now();
}

}  // namespace minimt::serve
