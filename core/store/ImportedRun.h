#pragma once

#include "core/model/RequestRecord.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One run of another tool's results as its importer read it (fio, AIPerf, guidellm): what
// `import` stores. The importers are pure functions of the files' text, so they are tested on
// the tools' own layouts without a workspace.
struct ImportedRun {
    std::string workload; // the run's workload: "storage/fio", "aiperf", "guidellm"
    std::string name;     // the tool's name for it: a fio job, a guidellm strategy
    nlohmann::json params = nlohmann::json::object();
    // The tool's own figures, unchanged, and under "imported_kpis" the KPIs they carry in
    // tierscope's names and SI units (RunKpis reads those); "validity" holds the checks a
    // comparison must heed (a job fio ended with an error, a cancelled benchmark).
    nlohmann::json summary = nlohmann::json::object();
    std::vector<RequestRecord> requests;
    std::optional<std::int64_t> startNs; // wall clock, ns since the epoch
    std::optional<std::int64_t> endNs;
};

} // namespace tierscope
