#pragma once

#include "workloads/IoJob.h"
#include "workloads/IoRunner.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

class StorageManifest;

// One measured run of a storage workload, planned: the one place where a workload kind becomes
// its I/O job, for `storage run` and for an experiment's storage runs alike.
struct StorageRunPlan {
    struct Spec {
        std::string kind; // model-load | kv-restore | checkpoint-save
        std::string path;
        int parallel = 4;     // model-load: shards read at once; checkpoint-save: writers
        int concurrency = 16; // kv-restore: requests in flight
        int requests = 0;     // kv-restore: 0, one per prepared prefix
        int tokens = 0;       // kv-restore: 0, the prepared prefix length
        int depth = 4;        // I/O in flight per file or request
        std::uint32_t blockSize = 1 << 20;
        bool direct = true;
        std::uint64_t size = 1ULL << 30; // checkpoint-save
        int files = 4;                   // checkpoint-save
        bool preallocate = false;        // checkpoint-save
        bool restore = false;            // checkpoint-save: read it back after the save
        // A million kv-restore requests take seconds to plan: stops early, the job partial.
        const std::atomic<bool>* cancel = nullptr;
    };

    IoJob job;
    std::optional<IoJob> restore;
    nlohmann::json params; // the workload's own parameters
    // The run's summary from its results (the restore's, when there was one).
    std::function<nlohmann::json(const IoRunner::Result&, const IoRunner::Result*)> summarize;

    // Throws WorkloadError: an unknown kind, a directory without the data set, options that do
    // not fit the prepared layout, strangers' files in a checkpoint's way.
    static StorageRunPlan make(const Spec& spec, StorageManifest& manifest);
};

} // namespace tierscope
