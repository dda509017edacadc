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
#include <vector>

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
        std::size_t sequence = 0; // its place in the schedule, from 0, whatever its lane
        std::shared_ptr<const Conversation> conversation;
        std::string body;
    };
    using MakeBody = std::function<std::string(const std::shared_ptr<const Conversation>&)>;

    // Starts reading `schedule` (which must outlive the feed and is read on the feed's thread
    // only) with at most `most` requests and `mostBytes` of bodies ready. The requests are dealt
    // round robin to `lanes` (one per event loop), each lane read by one loop only.
    ScheduleFeed(RequestSchedule& schedule, MakeBody makeBody, std::size_t most,
                 std::size_t mostBytes, std::size_t lanes = 1);
    ~ScheduleFeed();
    ScheduleFeed(const ScheduleFeed&) = delete;
    ScheduleFeed& operator=(const ScheduleFeed&) = delete;

    // Until the feed is full or the schedule over: the first requests are ready before the
    // clock starts.
    void waitFilled();
    // The offset of the lane's next ready request; nothing while none is ready. Rethrows what
    // the schedule threw once the lane's requests before it are sent.
    std::optional<std::chrono::nanoseconds> nextOffset(std::size_t lane = 0);
    Ready pop(std::size_t lane = 0); // after nextOffset(lane) said one is ready
    // The schedule is over and every request of the lane was taken.
    bool ended(std::size_t lane = 0) const;

  private:
    void run();

    RequestSchedule& m_schedule;
    MakeBody m_makeBody;
    const std::size_t m_most, m_mostBytes;
    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_changed;
    std::vector<std::deque<Ready>> m_ready; // per lane
    std::size_t m_count = 0, m_bytes = 0;   // ready in all lanes
    std::size_t m_nextLane = 0;
    std::size_t m_read = 0; // requests read from the schedule
    bool m_over = false;    // no more from the schedule
    bool m_stop = false;
    std::exception_ptr m_error;
    std::thread m_thread; // last: started once the rest exists
};

} // namespace tierscope
