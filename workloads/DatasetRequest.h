#pragma once

#include "workloads/IoJob.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// The data set a read workload needs, as `storage prepare` (from its flags) and an experiment
// plan (from its workload's keys) ask for it: what it is, compared with the manifest's before
// a run may reuse it, the job that writes it, and its description.
struct DatasetRequest {
    std::string workload = "model-load"; // or kv-restore
    std::uint64_t totalBytes = 0;        // model-load
    int files = 4;                       // model-load
    StorageDataset::KvLayout layout;     // kv-restore

    // What the manifest holds once this data set is prepared (without the completeness flag).
    nlohmann::json wanted() const;
    // Whether the manifest holds exactly this data set, completely written.
    bool readyIn(const StorageManifest& manifest) const;
    // The write job; the manifest records the data set incomplete until markComplete().
    IoJob prepare(StorageManifest& manifest) const;
    // "model-load data, 4 shards", "KV chunks, 8 prefixes of 2048 tokens (Llama-3.1-8B, ...)".
    std::string describe() const;
};

} // namespace tierscope
