#pragma once

#include "workloads/IoJob.h"
#include "workloads/IoRunner.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// Reads every file of a directory (safetensors shards, say) the way a loader does: `parallel`
// files at a time, each read front to back in `blockSize` reads, `depth` in flight per file.
class ModelLoadWorkload {
  public:
    struct Options {
        std::string dir;
        int parallel = 4;
        int depth = 4;
        std::uint32_t blockSize = 1 << 20;
        bool direct = true;
    };

    explicit ModelLoadWorkload(Options options);
    // Regular files directly in the directory, by name; not hidden files (the manifest).
    // Throws WorkloadError when the directory is missing, unreadable or holds no file.
    IoJob job() const;
    nlohmann::json summarize(const IoJob& job, const IoRunner::Result& result) const;
    nlohmann::json params() const;

  private:
    Options m_options;
};

} // namespace tierscope
