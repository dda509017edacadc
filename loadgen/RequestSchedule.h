#pragma once

#include "loadgen/Conversation.h"

#include <chrono>
#include <optional>

namespace tierscope {

// Requests with their own send times, handed to the load generator one at a time (a trace
// replay): open loop like --rate, but the offsets come from the schedule instead of gamma
// arrivals. The generator asks for requests a little ahead of their time (64 at most), while
// nothing is due, so whatever the schedule does to build one happens while the loop waits, and
// a schedule of any length holds only what has been read ahead.
class RequestSchedule {
  public:
    struct Request {
        std::chrono::nanoseconds offset{0}; // from the run's start; never before the previous
        Conversation conversation;          // one round: a trace records each turn as a request
    };

    virtual ~RequestSchedule() = default;
    // The next request; nothing when the schedule is over.
    virtual std::optional<Request> next() = 0;
};

} // namespace tierscope
