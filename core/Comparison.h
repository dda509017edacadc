#pragma once

#include "core/KpiComparison.h"
#include "core/RunInfo.h"

#include <string>
#include <vector>

namespace tierscope {

// One side of an A/B comparison: a run, the runs of a session, or an experiment arm.
struct ComparisonSide {
    std::string label;
    std::vector<RunInfo> runs;
    std::vector<std::vector<StoredRequest>> requests; // per run, same order
};

// Computes every KPI that both sides have:
// - from their requests (pooled over runs): ttft_p50/p90/p99, itl_mean, tpot_mean,
//   e2el_p50/p99;
// - from their run summaries (one value per run, averaged): output_throughput,
//   request_throughput, goodput, read_gb_per_s, write_gb_per_s, model_load_time,
//   checkpoint_time, kv_restore_p50, kv_restore_p99.
// Each carries a seeded 95 % bootstrap interval of B - A.
class Comparison {
  public:
    static std::vector<KpiComparison> compare(const ComparisonSide& a, const ComparisonSide& b,
                                              std::uint64_t seed = 1);
};

} // namespace tierscope
