#pragma once

#include "core/model/RunInfo.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// What a session's runs did with their requests, for the load and run views: one row per run
// that sent requests, with the run's KPIs as `compare` computes them (RunKpis, so the table and
// the comparison never disagree), its TTFTs for a CDF and each request's TTFT against the time
// since the run started, for overlays aligned at run start.
class RunRequestSummary {
  public:
    struct Row {
        RunInfo run;
        std::string group; // the arm, else the workload
        bool measurement = false;
        std::map<std::string, double> kpis; // by RunKpis name; absent: no evidence
        // The KPI's own TTFTs (from the scheduled send under an open-loop rate), ascending.
        std::vector<double> ttftS;
        // (seconds since the run's start, TTFT) per successful request, by send.
        std::vector<std::pair<double, double>> ttftOverRunS;
    };

    // Runs without a request are left out; the rest keep the order given.
    static std::vector<Row>
    of(const std::vector<std::pair<RunInfo, std::vector<StoredRequest>>>& runs);
    // The empirical CDF of ascending values as steps: (value, fraction at or below it), one
    // point per distinct value, the last at 1.
    static std::vector<std::pair<double, double>> cdf(const std::vector<double>& ascending);
};

} // namespace tierscope
