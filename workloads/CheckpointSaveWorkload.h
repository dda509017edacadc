#pragma once

#include "workloads/IoJob.h"
#include "workloads/IoRunner.h"
#include "workloads/StorageManifest.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// torch.save followed by fsync: `totalBytes` written as `files` files, `parallel` files at a
// time (one per rank in a sharded checkpoint), each ending in fsync before it counts as saved.
class CheckpointSaveWorkload {
  public:
    struct Options {
        std::string dir;
        std::uint64_t totalBytes = 8ULL << 30;
        int files = 8;
        int parallel = 8;
        int depth = 4;
        std::uint32_t blockSize = 1 << 20;
        bool direct = true;
        bool preallocate = false; // torch.save does not; a tuned writer may
    };

    explicit CheckpointSaveWorkload(Options options);

    // Claims the file names in the manifest (refusing strangers' files, checking free space).
    IoJob saveJob(StorageManifest& manifest) const;
    // Reads the saved files back, as a restore from the checkpoint does.
    IoJob restoreJob(const IoJob& saved) const;
    std::uint64_t fileBytes() const;
    nlohmann::json summarize(const IoRunner::Result& save, const IoRunner::Result* restore) const;
    nlohmann::json params() const;

  private:
    Options m_options;
};

} // namespace tierscope
