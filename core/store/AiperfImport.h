#pragma once

#include "core/store/ImportedRun.h"

#include <istream>
#include <string>

namespace tierscope {

// An NVIDIA AIPerf profile export as one run, workload "aiperf": its summary
// (profile_export_aiperf.json, JsonExportData: one {unit, avg, p50, ...} object per metric,
// in AIPerf's display units) kept exactly under "aiperf", and its per-request records
// (profile_export.jsonl, MetricRecordInfo: metadata, metrics {value, unit}, error) as request
// rows where the run saved them. Warm-up records are left out, as AIPerf's summary leaves them.
//
// AIPerf's names are not vLLM's: its "inter_token_latency" is (latency - TTFT) / (OSL - 1) per
// request, vLLM's TPOT, so its mean is tpot_mean; every stream gap pooled is its
// "inter_chunk_latency" (itl_mean). The file's own figures are the run's KPIs.
class AiperfImport {
  public:
    static constexpr const char* kSummaryFile = "profile_export_aiperf.json";
    static constexpr const char* kRecordsFile = "profile_export.jsonl";

    // `records` may be null (exported without records). Throws std::runtime_error with one
    // line naming what is wrong, for the records with its line number.
    static ImportedRun parse(const std::string& summary, std::istream* records);
};

} // namespace tierscope
