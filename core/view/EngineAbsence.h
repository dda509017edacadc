#pragma once

#include "core/model/DeviceRecord.h"
#include "core/view/ChartCatalog.h"

#include <string>
#include <vector>

namespace tierscope {

// The catalog explains an empty engine chart with "add its /metrics URL in Settings". Once an
// endpoint is configured that advice is wrong: say which endpoint is scraped and what came of it.
class EngineAbsence {
  public:
    enum class Scrape { Unknown, Failing, Answering };

    // Live: `urls` are being scraped now. Recorded: they were scraped (`live` false).
    static void explain(std::vector<ChartCatalog::Chart>& charts,
                        const std::vector<std::string>& urls, bool live,
                        Scrape scrape = Scrape::Unknown);
    // The endpoints a session's device list names (kind "engine-endpoint").
    static std::vector<std::string> urlsOf(const std::vector<DeviceRecord>& devices);
};

} // namespace tierscope
