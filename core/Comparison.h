#pragma once

#include "core/KpiComparison.h"
#include "core/RunInfo.h"
#include "core/RunTimeline.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// One side of an A/B comparison: a run, the runs of a session, or an experiment arm.
struct ComparisonSide {
    std::string label;
    std::vector<RunInfo> runs;
    std::vector<std::vector<StoredRequest>> requests; // per run, same order
    std::vector<RunTimeline> timelines;               // per run, same order; may be empty
};

// Computes every KPI that both sides have:
// - from their requests (pooled over runs): ttft_p50/p90/p99, itl_mean, tpot_mean,
//   e2el_p50/p99;
// - from their run summaries (one value per run, averaged): output_throughput,
//   request_throughput, goodput, read_gb_per_s, write_gb_per_s, model_load_time,
//   checkpoint_time, kv_restore_p50, kv_restore_p99;
// - from their recorded timelines (one value per run, averaged): gpu_busy_mean,
//   read_gb_per_s_peak, write_gb_per_s_peak, and <class>_share for each bottleneck class
//   either side spent time in.
// Each carries a seeded 95 % bootstrap interval of B - A.
class Comparison {
  public:
    static std::vector<KpiComparison> compare(const ComparisonSide& a, const ComparisonSide& b,
                                              std::uint64_t seed = 1);
    // The time share (0..1) of each bottleneck class, averaged over the completed runs that
    // have a timeline.
    static std::map<BottleneckClassifier::Class, double> shares(const ComparisonSide& side);
    // "storage-bound" -> "storage_bound_share"
    static std::string shareKpi(BottleneckClassifier::Class c);
};

} // namespace tierscope
