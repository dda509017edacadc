#include "core/analysis/RangeStatistics.h"

#include "core/analysis/SessionAnalysis.h"
#include "core/stats/LoadSummary.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace tierscope {

namespace {

// The requests of the session's runs sent in [t0, t1) (absolute times).
RangeStatistics::Requests requestsIn(const std::vector<std::vector<StoredRequest>>& runs,
                                     std::int64_t t0, std::int64_t t1) {
    RangeStatistics::Requests out;
    std::vector<double> ttft;
    for (const auto& requests : runs)
        for (const auto& r : requests) {
            if (r.sendNs < t0 || r.sendNs >= t1)
                continue;
            ++out.count;
            if (!r.ok)
                ++out.failed;
            else if (r.ttftS)
                ttft.push_back(*r.ttftS);
        }
    if (!ttft.empty()) {
        out.ttftP50S = LoadSummary::percentile(ttft, 50);
        out.ttftP99S = LoadSummary::percentile(ttft, 99);
    }
    return out;
}

// The values of the samples in [t0, t1): readRaw includes t1 itself.
std::vector<double> valuesIn(const std::vector<Sample>& samples, std::int64_t t0, std::int64_t t1) {
    std::vector<double> out;
    out.reserve(samples.size());
    for (const auto& s : samples)
        if (s.tNs >= t0 && s.tNs < t1)
            out.push_back(s.value);
    return out;
}

} // namespace

std::optional<std::pair<std::int64_t, std::int64_t>>
RangeStatistics::resolve(const Range& range, std::int64_t lengthNs) {
    // Past the end nothing was recorded: the range stops there, and so does the analysis.
    const std::int64_t from = range.fromNs.value_or(0);
    const std::int64_t to = std::min(range.toNs.value_or(lengthNs), lengthNs);
    if (from < 0 || to <= from)
        return std::nullopt;
    return std::make_pair(from, to);
}

std::optional<RangeStatistics::Figures>
RangeStatistics::figuresOf(const std::vector<double>& values) {
    if (values.empty())
        return std::nullopt;
    Figures f;
    f.count = values.size();
    f.min = *std::min_element(values.begin(), values.end());
    f.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(f.count);
    f.p50 = LoadSummary::percentile(values, 50);
    f.p99 = LoadSummary::percentile(values, 99);
    f.last = values.back();
    return f;
}

std::optional<double> RangeStatistics::change(const std::optional<Figures>& before,
                                              const std::optional<Figures>& now) {
    if (!before || !now || before->mean == 0)
        return std::nullopt;
    return (now->mean - before->mean) / std::abs(before->mean);
}

const RangeStatistics::Series* RangeStatistics::Result::find(std::int64_t metricId) const {
    for (const auto& s : series)
        if (s.metric.id == metricId)
            return &s;
    return nullptr;
}

RangeStatistics::Result RangeStatistics::compute(Store& store, std::int64_t sessionId,
                                                 std::int64_t fromNs, std::int64_t toNs,
                                                 std::int64_t windowNs,
                                                 const std::set<std::int64_t>& metricIds) {
    const auto info = store.session(sessionId);
    if (!info)
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(sessionId));
    Result out;
    out.sessionId = sessionId;
    out.fromNs = fromNs;
    out.toNs = toNs;
    out.windowNs = windowNs;
    out.beforeFromNs = std::max<std::int64_t>(0, fromNs - (toNs - fromNs));
    const std::int64_t start = info->startNs;
    const std::int64_t t0 = start + fromNs, t1 = start + toNs, before = start + out.beforeFromNs;
    for (const auto& m : store.metrics(sessionId)) {
        if (!metricIds.empty() && !metricIds.count(m.id))
            continue;
        // One read for both ranges: they are adjacent.
        const auto samples = store.readRaw(m.id, before, t1);
        Series s{m, figuresOf(valuesIn(samples, t0, t1)), figuresOf(valuesIn(samples, before, t0)),
                 std::nullopt};
        s.meanChange = change(s.before, s.now);
        out.series.push_back(std::move(s));
    }
    std::vector<std::vector<StoredRequest>> runs;
    for (const auto& run : store.runsOfSession(sessionId))
        runs.push_back(store.requests(run.id));
    out.requests = requestsIn(runs, t0, t1);
    if (before < t0)
        out.requestsBefore = requestsIn(runs, before, t0);
    if (windowNs > 0)
        out.shares = SessionAnalysis::analyzeRange(store, sessionId, t0, t1, windowNs).shares;
    return out;
}

} // namespace tierscope
