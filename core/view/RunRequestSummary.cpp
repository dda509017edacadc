#include "core/view/RunRequestSummary.h"

#include "core/compare/RunKpis.h"

#include <algorithm>

namespace tierscope {

std::vector<RunRequestSummary::Row>
RunRequestSummary::of(const std::vector<std::pair<RunInfo, std::vector<StoredRequest>>>& runs) {
    std::vector<Row> out;
    for (const auto& [run, requests] : runs) {
        if (requests.empty())
            continue;
        Row row;
        row.run = run;
        row.group = run.arm.empty() ? run.workload : run.arm;
        row.measurement = RunKpis::isMeasurement(run);
        row.kpis = RunKpis::of(run, requests, nullptr);
        const bool openLoop = RunKpis::openLoop(run);
        for (const auto& r : requests) {
            const auto ttft = RunKpis::ttftOf(r, openLoop);
            if (!r.ok || !ttft)
                continue;
            row.ttftS.push_back(*ttft);
            // Under a rate the schedule is when the user asked: the overlay plots the request
            // there, as its TTFT counts from there.
            const std::int64_t at =
                openLoop && r.scheduledNs && *r.scheduledNs > 0 ? *r.scheduledNs : r.sendNs;
            row.ttftOverRunS.emplace_back(static_cast<double>(at - run.startNs) / 1e9, *ttft);
        }
        std::sort(row.ttftS.begin(), row.ttftS.end());
        std::sort(row.ttftOverRunS.begin(), row.ttftOverRunS.end());
        out.push_back(std::move(row));
    }
    return out;
}

std::vector<std::pair<double, double>>
RunRequestSummary::cdf(const std::vector<double>& ascending) {
    std::vector<std::pair<double, double>> out;
    const auto n = static_cast<double>(ascending.size());
    for (std::size_t i = 0; i < ascending.size(); ++i) {
        const double fraction = static_cast<double>(i + 1) / n;
        if (!out.empty() && out.back().first == ascending[i])
            out.back().second = fraction; // ties: one step to the higher fraction
        else
            out.emplace_back(ascending[i], fraction);
    }
    return out;
}

} // namespace tierscope
