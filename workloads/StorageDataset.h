#pragma once

#include "workloads/IoJob.h"
#include "workloads/KvGeometry.h"
#include "workloads/StorageManifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// The files `tierscope storage prepare` writes, and their names. Each prepare replaces the
// previous data set of the same workload; every file is recorded in the manifest before it is
// created, so an interrupted prepare leaves nothing unaccounted for.
class StorageDataset {
  public:
    static constexpr std::uint64_t kAlign = 4096; // O_DIRECT wants whole blocks

    struct KvLayout {
        KvGeometry geometry;
        int chunkTokens = 256;
        int tokens = 4096; // longest prefix a request can restore
        int prefixes = 16; // distinct prefixes (one per request by default)
        std::uint64_t chunkBytes() const;
        int chunksPerPrefix() const {
            return static_cast<int>((std::int64_t{tokens} + chunkTokens - 1) / chunkTokens);
        }
        std::uint64_t totalBytes() const;
        nlohmann::json toJson() const;
        // What makes the layout unusable, or "": the geometry's problem, a non-positive size,
        // or more chunk files or bytes than a preparation may create (the bounds are checked
        // before anything is allocated, so no size can overflow or exhaust memory).
        std::string problem() const;
        static KvLayout fromJson(const nlohmann::json& j); // throws WorkloadError
    };

    static std::string shardName(int index, int count);
    static std::string kvChunkName(int prefix, int chunk);
    static std::string checkpointName(int index, int count);
    static std::uint64_t alignUp(std::uint64_t bytes) {
        return (bytes + kAlign - 1) / kAlign * kAlign;
    }

    // Each returns the write job (create, fsync) and has already updated and saved the manifest.
    // They check ownership of every name and free space before anything is written. The data
    // set is recorded incomplete: only markComplete(), once the job has written and synced
    // every byte, makes it usable, so an interrupted preparation (fallocated files full of
    // unwritten extents, which read as zeros without touching the device) is never measured.
    static IoJob prepareModelLoad(StorageManifest& manifest, std::uint64_t totalBytes, int files);
    static IoJob prepareKvRestore(StorageManifest& manifest, const KvLayout& layout);
    static void markComplete(StorageManifest& manifest, const std::string& workload);
    // What prepareModelLoad records for these parameters (without the completeness flag).
    static nlohmann::json modelLoadDataset(std::uint64_t totalBytes, int files);
    // Whether `workload`'s data set in the manifest is complete and is the one `wanted`
    // describes (every key of `wanted` equal): else it must be prepared again.
    static bool ready(const StorageManifest& manifest, const std::string& workload,
                      const nlohmann::json& wanted);
    // The complete data set of `workload`, or why there is none usable: absent, or left
    // incomplete. Throws WorkloadError (NotFound, Refused) naming the prepare command.
    static const nlohmann::json& completeDataset(const StorageManifest& manifest,
                                                 const std::string& workload);

    // Deletes the files of one workload's data set (or all, for an empty name) that the
    // manifest owns, and forgets them; files it cannot prove are tierscope's (see
    // StorageManifest::removeOwned) are left in place and kept in the manifest. Returns the
    // number of files gone. The refusals go to `refusals`, or without it throw
    // WorkloadError::Refused once the rest is done.
    static int remove(StorageManifest& manifest, const std::string& workload,
                      std::vector<std::string>* refusals = nullptr);

    // Unlinks the owned files among `files`, then creates the new ones empty and records them
    // with their inodes (set in each FileSpan, so the write job can check it still has them);
    // throws when a name is taken by a file tierscope did not create or cannot prove it
    // created, or when the bytes do not fit.
    static void claim(StorageManifest& manifest, std::vector<FileSpan>& files);
};

} // namespace tierscope
