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
    std::optional<double> ttftS;
    std::optional<double> e2eS;
    std::optional<double> itlMeanS;
    std::optional<int> outputTokens;
    bool ok = false;
};

} // namespace tierscope
