#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One load-generator request. Times are measured on the monotonic clock; the wall-clock stamps
// place it on the timeline. TTFT is the first chunk that carries text (answer or reasoning,
// StreamChunk); the end is the arrival of the stream's last data.
struct RequestRecord {
    std::int64_t index = 0;
    std::int64_t scheduledNs = 0;         // wall clock: when the schedule wanted it sent
    std::int64_t sendNs = 0;              // wall clock: when it was actually handed to the network
    std::optional<double> ttftS;          // from the actual send
    std::optional<double> ttftScheduledS; // from the scheduled send: includes client queueing
    std::vector<double> itlS;             // gaps between token chunks (a chunk may hold several)
    std::optional<double> e2eS;
    std::optional<double> e2eScheduledS;
    std::optional<int> promptTokens; // from the usage chunk: absent (NULL when stored) without
    std::optional<int> outputTokens; // one, never counted from the chunks
    int httpStatus = 0;
    std::string error;      // empty on success
    std::string responseId; // the server's id of the completion
    std::string outputText;

    bool ok() const { return error.empty() && httpStatus == 200; }
};

} // namespace tierscope
