#pragma once

#include "core/model/DeviceRecord.h"
#include "core/model/MetricInfo.h"

#include <string>
#include <vector>

namespace tierscope {

// Which charts the timeline shows, and which series go on each, from a session's metrics. A
// chart with no series carries the reason its source is absent, taken from the backends'
// device records (e.g. "No AMD GPU: rocm-smi could not initialise (no KFD ...)").
class ChartCatalog {
  public:
    enum class Unit { Percent, Bytes, BytesPerSecond, Seconds, Ratio, Count, TokensPerSecond };
    struct Series {
        std::int64_t metricId = 0;
        std::string name;       // legend text
        bool reference = false; // a limit drawn for comparison (VRAM total), not a reading
        std::string node;       // the machine it came from, when read through Prometheus
        // One dot per value, not a line: each is an event (a request's TTFT), and a line
        // between two requests would draw values nobody measured.
        bool dots = false;
        // 1.. from the bottom in a stacked chart (a part of a whole); 0: drawn as a line.
        int stack = 0;
    };
    struct Chart {
        std::string id;
        std::string title;
        Unit unit = Unit::Count;
        std::vector<Series> series;
        std::string absentReason; // set when series is empty
        // Its `stack` series are drawn as bands on each other, so the top of the stack is
        // their sum; the rest are lines over them.
        bool stacked = false;
    };

    // "NVMe/RDMA" for the transport label "rdma"; unknown labels as they are.
    static std::string transportName(const std::string& transport);

    static std::vector<Chart> build(const std::vector<MetricInfo>& metrics,
                                    const std::vector<DeviceRecord>& devices);
};

} // namespace tierscope
