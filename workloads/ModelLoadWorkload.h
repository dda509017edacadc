#pragma once

#include "workloads/IoJob.h"
#include "workloads/IoRunner.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// Reads the files of a model the way a loader does: `parallel` files at a time, each read front
// to back in `blockSize` reads, `depth` in flight per file. The files are the directory's
// prepared model-load data set when it has one (`storage prepare model-load`), else every
// regular file in it (a real model's safetensors shards, say).
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
    // The prepared shards, refused (WorkloadError::Refused) while their preparation is
    // incomplete; or, where nothing was prepared, the regular files directly in the
    // directory by name, not hidden ones and not another data set's. Throws WorkloadError
    // when the directory is missing, unreadable or holds no file.
    IoJob job() const;
    nlohmann::json summarize(const IoJob& job, const IoRunner::Result& result) const;
    nlohmann::json params() const;

  private:
    IoJob jobOf(std::vector<FileSpan> files) const;

    Options m_options;
};

} // namespace tierscope
