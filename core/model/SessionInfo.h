#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

struct SessionInfo {
    std::int64_t id = 0;
    std::string label;
    std::string storageProfile;
    std::string host;
    std::int64_t startNs = 0;
    std::optional<std::int64_t> endNs; // absent while recording or after a crash
    std::string notes;
    std::string tags;
    std::string toolVersion;
    bool hasRequests = false; // read only: a run of it stored requests (load, an experiment)
    // Read only, for an open session where a listing judged it (SessionState::of: "recording"
    // or "interrupted"); empty where nobody asked.
    std::string state;
};

} // namespace tierscope
