#pragma once

#include "loadgen/Conversation.h"
#include "loadgen/RequestSchedule.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tierscope {

// A schedule's requests made ready to send (prompt and request body) on a thread of their own,
// a bounded number ahead, so the load generator's loop only hands each to libcurl when it is
// due. Making one (reading the trace, drawing its words, writing its JSON) would otherwise
// delay the sends it overlaps: a burst of requests due at the same millisecond, as traces
// have, would leave one prompt apart.
class ScheduleFeed {
  public:
    struct Ready {
        std::chrono::nanoseconds offset{0};
        std::shared_ptr<const Conversation> conversation;
        std::string body;
    };
    using MakeBody = std::function<std::string(const std::shared_ptr<const Conversation>&)>;

    // Starts reading `schedule` (which must outlive the feed and is read on the feed's thread
    // only) with at most `most` requests and `mostBytes` of bodies ready.
    ScheduleFeed(RequestSchedule& schedule, MakeBody makeBody, std::size_t most,
                 std::size_t mostBytes);
    ~ScheduleFeed();
    ScheduleFeed(const ScheduleFeed&) = delete;
    ScheduleFeed& operator=(const ScheduleFeed&) = delete;

    // Until the feed is full or the schedule over: the first requests are ready before the
    // clock starts.
    void waitFilled();
    // The offset of the next ready request; nothing while none is ready. Rethrows what the
    // schedule threw once the requests before it are sent.
    std::optional<std::chrono::nanoseconds> nextOffset();
    Ready pop(); // after nextOffset() said one is ready
    // The schedule is over and every request was taken.
    bool ended() const;

  private:
    void run();

    RequestSchedule& m_schedule;
    MakeBody m_makeBody;
    const std::size_t m_most, m_mostBytes;
    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_changed;
    std::deque<Ready> m_ready;
    std::size_t m_bytes = 0;
    bool m_over = false; // no more from the schedule
    bool m_stop = false;
    std::exception_ptr m_error;
    std::thread m_thread; // last: started once the rest exists
};

} // namespace tierscope
