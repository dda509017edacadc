#pragma once

#include "core/analysis/RunTimeline.h"
#include "core/model/RunInfo.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Every KPI of ONE run, the comparison's statistical unit: the p50 of that run's TTFTs, its
// throughput, its peak bandwidth. Requests inside a run share its warm-up, page cache and
// noise, so only whole runs are independent repetitions.
class RunKpis {
  public:
    struct Definition {
        std::string name;
        std::string displayName; // "TTFT p50", as every view names it
        std::string unit;
        bool lowerIsBetter = true;
        // A "%" gate on this KPI bounds B's own level ("failure_rate <= 1%"), not a change.
        bool gateOnLevel = false;
        std::string note; // how it is measured, where it differs from the obvious
        // Where the verdict's headline ranks it when no gate names the outcomes: 1 is the
        // primary, the one figure that may name a side; 0: never a default outcome.
        int headlineRank = 0;
        // A share of the run's time or tokens, which can be 0 on one side: it changes in
        // points, never by a factor.
        bool inPoints = false;
        // Not a run's value but an arm's: the capacity its load sweep reads off all its runs
        // (SweepCapacity), compared on a bracket, never averaged over runs.
        bool armLevel = false;
    };

    // Not a KPI: how many requests a run issued, the weight behind its failure_rate.
    static constexpr const char* kIssued = "requests_issued";
    // Not a KPI: 1 where the run's joules_per_output_token holds energy integrated from power
    // readings (a GPU without an energy counter), 0 where hardware counters alone.
    static constexpr const char* kEnergyIntegrated = "gpu_energy_integrated";

    // The KPIs in table order, bottleneck shares last.
    static const std::vector<Definition>& definitions();
    static const Definition* find(const std::string& name);
    // A KPI name of an earlier release and the one that replaced it, for the error an old
    // plan's gate gets (its meaning changed, so it is not read silently under the new name).
    static std::optional<std::string> renamedTo(const std::string& name);
    // "storage-bound" -> "storage_bound_share"
    static std::string shareName(BottleneckClassifier::Class c);

    // Completed and imported runs are measurements; warm-up, failed, cancelled and running
    // ones are not.
    static bool isMeasurement(const RunInfo& run);
    // A run's workload variant, "load@c8", "load@rate4", "storage/kv-restore@c16": runs of
    // different variants measure different things and never share a side.
    static std::string variant(const RunInfo& run);
    // A serving benchmark imported from another client (vllm bench serve, AIPerf, guidellm):
    // its variant is "load", and its TTFT counts from the actual send, as those clients time it.
    static bool importedLoad(const RunInfo& run);
    // Under an open-loop rate TTFT counts from the scheduled send.
    static bool openLoop(const RunInfo& run);
    // A request's TTFT as the KPIs count it (from the schedule when `openLoop`); absent when
    // it reached no first token.
    static std::optional<double> ttftOf(const StoredRequest& r, bool openLoop);

    // For an imported `vllm bench serve` run: each summary latency figure that the file's own
    // per-request arrays contradict, one line each ("median_ttft_ms 0.000 ms in the summary,
    // 480.120 ms from its 200 requests: ..."). `of` uses the requests' figure there.
    static std::vector<std::string> summaryConflicts(const RunInfo& run,
                                                     const std::vector<StoredRequest>& requests);

    // The run's values by KPI name; a KPI the run has no evidence for is absent.
    static std::map<std::string, double>
    of(const RunInfo& run, const std::vector<StoredRequest>& requests, const RunTimeline* timeline);
};

} // namespace tierscope
