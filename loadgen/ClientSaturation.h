#pragma once

#include "core/stats/QuantileSketch.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// How loaded the load client's own event loops were, so a run says when the client and not
// the server limited it (as inference-perf reports its schedule delay). Two lags per loop:
//  - the schedule delay: a scheduled send (a rate or a trace) from its scheduled time to the
//    send. It changes what the server is offered and, measured from the schedule, the TTFT:
//    past kSaturatedLagMs the run is the client's, and the summary says so.
//  - the read lag: data from the kernel's receive timestamp to the loop reading the socket.
//    TTFT and ITL are taken at the kernel's timestamps, so this lag does not enter them; it
//    shows how busy the loop was (every stream's first token at once makes a burst of it).
// A loop's CPU is its thread's own CPU time over the loop's wall time.
class ClientSaturation {
  public:
    // Above this schedule delay p99 the client's figures carry its own queueing.
    static constexpr double kSaturatedLagMs = 1.0;

    struct Loop {
        QuantileSketch readLagS;
        QuantileSketch sendLagS;
        double cpuS = 0;
        double wallS = 0;
        long requests = 0; // issued by this loop, warm-ups included
    };

    std::vector<Loop> loops;

    // The loop whose lag p99 (of `lag`: &Loop::readLagS or &Loop::sendLagS) is highest;
    // nothing when no loop measured that lag.
    std::optional<std::size_t> worstLoop(QuantileSketch Loop::*lag) const;
    // {"loops", "cpu_s" (all loops), "loop_lag_p50_ms"/"loop_lag_p99_ms" (the worst loop's
    //  read lag), "schedule_delay_p50_ms"/"schedule_delay_p99_ms" (the worst loop's),
    //  "per_loop": [{"requests", "read_lag_p50_ms", "read_lag_p99_ms", "schedule_delay_p50_ms",
    //  "schedule_delay_p99_ms", "cpu_s", "cpu_share"}]}; a figure not measured is left out.
    //  Null without loops.
    nlohmann::json toJson() const;
    // The summary's lines for `client` (toJson's), each ending in a newline, the warning last
    // when the worst schedule delay p99 exceeds kSaturatedLagMs; empty when nothing to say.
    static std::string describe(const nlohmann::json& client);
};

} // namespace tierscope
