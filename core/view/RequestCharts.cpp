#include "core/view/RequestCharts.h"

#include <algorithm>

namespace tierscope {

RequestCharts::Result RequestCharts::of(const std::vector<StoredRequest>& requests) {
    constexpr std::int64_t kSecond = 1000000000LL;
    std::vector<Bucket> actual, scheduled;
    // A closed loop stamps its schedule with the send: a second series only under a rate,
    // where some request left later than planned.
    const bool paced = std::any_of(requests.begin(), requests.end(), [](const StoredRequest& r) {
        return r.scheduledNs && *r.scheduledNs > 0 && r.sendNs - *r.scheduledNs > 1000000;
    });
    std::map<std::int64_t, double> tokens; // by second of completion
    for (const auto& r : requests) {
        if (r.ok && r.ttftS) {
            actual.push_back({r.sendNs, 0, *r.ttftS, *r.ttftS, *r.ttftS, 1});
            if (paced && r.scheduledNs && *r.scheduledNs > 0) {
                const double s = r.ttftFromScheduleS().value_or(*r.ttftS);
                scheduled.push_back({*r.scheduledNs, 0, s, s, s, 1});
            }
        }
        if (r.ok && r.e2eS && r.outputTokens)
            tokens[(r.sendNs + static_cast<std::int64_t>(*r.e2eS * 1e9)) / kSecond] +=
                *r.outputTokens;
    }
    Result out;
    if (actual.empty() && tokens.empty())
        return out;
    auto byTime = [](const Bucket& a, const Bucket& b) { return a.tNs < b.tNs; };
    std::sort(actual.begin(), actual.end(), byTime);
    std::sort(scheduled.begin(), scheduled.end(), byTime);
    ChartCatalog::Chart ttft{"load-ttft",
                             "Client TTFT per request",
                             ChartCatalog::Unit::Seconds,
                             {{kTtft, "TTFT from the actual send", false, {}, true}},
                             {}};
    if (!scheduled.empty())
        ttft.series.push_back({kTtftScheduled, "TTFT from the scheduled send", false, {}, true});
    std::vector<Bucket> rate;
    if (!tokens.empty()) // every second from the first completion to the last: idle is 0 here
        for (auto s = tokens.begin()->first; s <= tokens.rbegin()->first; ++s) {
            const auto it = tokens.find(s);
            const double v = it == tokens.end() ? 0.0 : it->second;
            rate.push_back({s * kSecond, kSecond, v, v, v, 1});
        }
    ChartCatalog::Chart throughput{"load-throughput",
                                   "Client output tokens/s",
                                   ChartCatalog::Unit::TokensPerSecond,
                                   {{kTokens, "output tokens/s (completed)", false}},
                                   {}};
    out.data[kTtft] = std::move(actual);
    if (!scheduled.empty())
        out.data[kTtftScheduled] = std::move(scheduled);
    out.data[kTokens] = std::move(rate);
    out.charts = {std::move(ttft), std::move(throughput)};
    return out;
}

} // namespace tierscope
