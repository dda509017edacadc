#pragma once

#include <chrono>
#include <optional>
#include <vector>

struct msghdr;

namespace tierscope {

// When the data waiting on a TCP socket reached this host, from the kernel's receive
// timestamps (SO_TIMESTAMPNS), read without consuming anything (MSG_PEEK). The load generator
// times a chunk by this rather than by when its event loop got to the socket, so a busy client
// does not count its own lag as the server's TTFT.
class ReceiveTimestamp {
  public:
    // Asks the kernel to timestamp what this socket receives; false where it refuses.
    static bool enable(int fd);

    // The arrival of the newest data queued on `fd`, on the steady clock; empty when nothing is
    // queued, the socket carries no timestamps, or more is queued than `scratch` holds (data
    // beyond it would be stamped too early).
    std::optional<std::chrono::steady_clock::time_point> newestQueued(int fd);

    // The receive timestamp a recvmsg() call with room for one SCM_TIMESTAMPNS returned, on the
    // steady clock; empty when there is none or the wall clock was stepped since.
    static std::optional<std::chrono::steady_clock::time_point> fromMessage(msghdr& message);

  private:
    std::vector<char> m_scratch = std::vector<char>(64 * 1024);
};

} // namespace tierscope
