#pragma once

#include "core/model/Bucket.h"
#include "core/model/RunInfo.h"
#include "core/view/ChartCatalog.h"

#include <cstdint>
#include <map>
#include <vector>

namespace tierscope {

// A load session's requests as charts: TTFT per request at its send (and at its scheduled send
// under a fixed rate), and output tokens/s per second of completion. Their series take negative
// ids, which no stored metric has, so they sit beside the stored series in one frame.
class RequestCharts {
  public:
    static constexpr std::int64_t kTtft = -1;
    static constexpr std::int64_t kTtftScheduled = -2;
    static constexpr std::int64_t kTokens = -3;

    struct Result {
        std::vector<ChartCatalog::Chart> charts;          // none for a session without requests
        std::map<std::int64_t, std::vector<Bucket>> data; // by the ids above, in time order
    };
    static Result of(const std::vector<StoredRequest>& requests);
};

} // namespace tierscope
