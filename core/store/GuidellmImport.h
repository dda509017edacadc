#pragma once

#include "core/store/ImportedRun.h"

#include <string>
#include <vector>

namespace tierscope {

// A guidellm benchmarks report (benchmarks.json of guidellm 0.4 to 0.7: report schema
// "metadata" version 1 or 2) as runs, one per benchmark: each strategy of a sweep
// (synchronous, concurrent, throughput, constant, poisson) is a run of workload "guidellm",
// its variant named by its concurrency or rate. The benchmark's own figures are kept under
// "guidellm" (its metrics and scheduler figures; not its configuration, which may name
// credentials); the requests it lists (successful, errored, incomplete: guidellm may list a
// sample of them) become request rows.
//
// guidellm's names are not vLLM's: its time_per_output_token_ms counts from the request's
// start, TTFT included, so it is no KPI here; its inter_token_latency_ms averages each
// request's token gaps weighted by its tokens, every gap pooled (itl_mean). TPOT comes from
// the rows. A latency distribution whose minimum is exactly 0 holds guidellm's stand-in for a
// value it did not measure (`or 0.0`, e.g. no streamed first token): it is not used.
class GuidellmImport {
  public:
    // Throws std::runtime_error with one line naming what is wrong.
    static std::vector<ImportedRun> parse(const std::string& text);
};

} // namespace tierscope
