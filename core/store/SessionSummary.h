#pragma once

#include "core/store/Store.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// What a finished recording holds, computed from the store (so it proves what was written).
struct SessionSummary {
    struct DiskPeak {
        std::string device;
        std::string transport;
        std::optional<double> readBytesPerS;
        std::optional<double> writeBytesPerS;
    };

    SessionInfo session;
    std::vector<std::string> blockDevices;
    std::vector<std::string> nvmeControllers;
    std::vector<std::string> backends; // "nvme: available", later "amd: unavailable: ..."
    std::int64_t metrics = 0;
    std::int64_t samples = 0;
    std::vector<DiskPeak> diskPeaks;   // per device, highest read first; "total" last
    std::optional<double> selfCpuMean; // seconds of CPU per second

    static SessionSummary compute(Store& store, std::int64_t sessionId);
};

} // namespace tierscope
