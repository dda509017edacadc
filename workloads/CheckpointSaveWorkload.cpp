#include "workloads/CheckpointSaveWorkload.h"

#include "workloads/StorageDataset.h"
#include "workloads/WorkloadError.h"
#include "workloads/WorkloadSummary.h"

namespace tierscope {

CheckpointSaveWorkload::CheckpointSaveWorkload(Options options) : m_options(std::move(options)) {}

std::uint64_t CheckpointSaveWorkload::fileBytes() const {
    const auto files = static_cast<std::uint64_t>(std::max(1, m_options.files));
    return StorageDataset::alignUp((m_options.totalBytes + files - 1) / files);
}

IoJob CheckpointSaveWorkload::saveJob(StorageManifest& manifest) const {
    if (m_options.files <= 0 || m_options.totalBytes == 0)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "checkpoint-save needs a size and files > 0");
    std::vector<FileSpan> spans;
    for (int i = 0; i < m_options.files; ++i)
        spans.push_back(
            {manifest.pathOf(StorageDataset::checkpointName(i, m_options.files)), fileBytes()});
    StorageDataset::claim(manifest, spans);
    IoJob job;
    for (auto& s : spans)
        job.streams.push_back({std::move(s)});
    job.write = true;
    job.create = false; // claim() created them; the runner checks each one's inode
    job.fsyncEachFile = true;
    job.preallocate = m_options.preallocate;
    job.concurrency = m_options.parallel;
    job.depth = m_options.depth;
    job.blockSize = m_options.blockSize;
    job.direct = m_options.direct;
    return job;
}

IoJob CheckpointSaveWorkload::restoreJob(const IoJob& saved) const {
    IoJob job = saved;
    job.write = false;
    job.create = false;
    job.fsyncEachFile = false;
    job.preallocate = false;
    return job;
}

nlohmann::json CheckpointSaveWorkload::params() const {
    return {{"path", m_options.dir},          {"total_bytes", m_options.totalBytes},
            {"files", m_options.files},       {"parallel", m_options.parallel},
            {"queue_depth", m_options.depth}, {"block_size", m_options.blockSize},
            {"direct", m_options.direct},     {"preallocate", m_options.preallocate}};
}

nlohmann::json CheckpointSaveWorkload::summarize(const IoRunner::Result& save,
                                                 const IoRunner::Result* restore) const {
    nlohmann::json s = WorkloadSummary::common("checkpoint-save", save);
    s["files"] = m_options.files;
    s["file_bytes"] = fileBytes();
    s["file_seconds"] = WorkloadSummary::distribution(save.fileSeconds);
    if (restore) {
        s["restore"] = WorkloadSummary::common("checkpoint-restore", *restore);
        s["restore"]["file_seconds"] = WorkloadSummary::distribution(restore->fileSeconds);
    }
    return s;
}

} // namespace tierscope
