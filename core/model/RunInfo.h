#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

// One stored workload execution (the `run` table).
struct RunInfo {
    std::int64_t id = 0;
    std::int64_t sessionId = 0;
    std::string experiment;
    std::string arm;
    std::string workload;
    std::string paramsJson = "{}";
    int repetition = 0;
    std::int64_t startNs = 0;
    std::optional<std::int64_t> endNs;
    std::string status;
    std::string summaryJson = "{}";
};

// What the comparison needs of one stored request.
struct StoredRequest {
    std::optional<double> ttftS; // from the actual send
    std::optional<double> e2eS;
    std::optional<double> itlMeanS;
    std::optional<long> itlCount; // how many gaps itlMeanS averages
    std::optional<int> outputTokens;
    std::optional<std::int64_t> scheduledNs; // wall clock: when the schedule wanted it sent
    std::int64_t sendNs = 0;                 // wall clock: when it was sent
    bool ok = false;

    // TTFT from the scheduled send: what a user waited under an open-loop rate, including the
    // client's own queueing.
    std::optional<double> ttftFromScheduleS() const {
        if (!ttftS || !scheduledNs || *scheduledNs <= 0 || sendNs < *scheduledNs)
            return ttftS;
        return *ttftS + static_cast<double>(sendNs - *scheduledNs) / 1e9;
    }
};

} // namespace tierscope
