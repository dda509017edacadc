#include "workloads/ModelLoadWorkload.h"

#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/WorkloadError.h"
#include "workloads/WorkloadSummary.h"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <sys/stat.h>

namespace tierscope {

namespace {

// The shards of the complete model-load data set the manifest records: its numbers are data
// anyone could edit, so they are bounded before anything is allocated.
std::vector<FileSpan> preparedShards(const StorageManifest& manifest) {
    const auto& d = StorageDataset::completeDataset(manifest, "model-load");
    const auto files = d.value("files", 0LL);
    const auto each = d.value("file_bytes", 0ULL);
    if (files < 1 || files > 100000 || each == 0)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "the model-load entry of the manifest in " + manifest.dir() +
                                " is damaged: prepare the data again");
    std::vector<FileSpan> out;
    for (int i = 0; i < files; ++i)
        out.push_back(
            {manifest.pathOf(StorageDataset::shardName(i, static_cast<int>(files))), each});
    return out;
}

} // namespace

ModelLoadWorkload::ModelLoadWorkload(Options options) : m_options(std::move(options)) {}

IoJob ModelLoadWorkload::job() const {
    // A directory tierscope prepared is read as its model-load data set: its own shards, once
    // completely written, never another data set's files or the user's. Any other directory (a
    // real model's) is read whole, except files a manifest says are tierscope's.
    const auto manifest = StorageManifest::load(m_options.dir, StorageManifest::Access::Read);
    if (manifest.findDataset("model-load"))
        return jobOf(preparedShards(manifest));
    DIR* d = opendir(m_options.dir.c_str());
    if (!d)
        throw WorkloadError::fromErrno(errno, "cannot read directory", m_options.dir);
    std::vector<FileSpan> files;
    while (const dirent* entry = readdir(d)) {
        if (entry->d_name[0] == '.' || manifest.owns(entry->d_name))
            continue;
        const std::string path = m_options.dir + "/" + entry->d_name;
        struct stat st {};
        if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            files.push_back({path, static_cast<std::uint64_t>(st.st_size)});
    }
    closedir(d);
    if (files.empty())
        throw WorkloadError(WorkloadError::Kind::NotFound,
                            m_options.dir +
                                " holds no files to load (run `tierscope storage "
                                "prepare model-load --path " +
                                m_options.dir + "` first)");
    std::sort(files.begin(), files.end(),
              [](const FileSpan& a, const FileSpan& b) { return a.path < b.path; });
    return jobOf(std::move(files));
}

IoJob ModelLoadWorkload::jobOf(std::vector<FileSpan> files) const {
    IoJob job;
    for (auto& f : files)
        job.streams.push_back({std::move(f)});
    job.concurrency = m_options.parallel;
    job.depth = m_options.depth;
    job.blockSize = m_options.blockSize;
    job.direct = m_options.direct;
    return job;
}

nlohmann::json ModelLoadWorkload::params() const {
    return {{"path", m_options.dir},
            {"parallel", m_options.parallel},
            {"queue_depth", m_options.depth},
            {"block_size", m_options.blockSize},
            {"direct", m_options.direct}};
}

nlohmann::json ModelLoadWorkload::summarize(const IoJob& job,
                                            const IoRunner::Result& result) const {
    nlohmann::json s = WorkloadSummary::common("model-load", result);
    nlohmann::json perFile = nlohmann::json::array();
    for (std::size_t i = 0; i < job.streams.size(); ++i) {
        const FileSpan& f = job.streams[i].front();
        const double secs = result.fileSeconds[i];
        perFile.push_back(
            {{"file", f.path.substr(f.path.find_last_of('/') + 1)},
             {"bytes", f.size},
             {"seconds", secs},
             {"gb_per_s", secs > 0 ? static_cast<double>(f.size) / secs / 1e9 : 0.0}});
    }
    s["files"] = job.streams.size();
    s["per_file"] = perFile;
    s["file_seconds"] = WorkloadSummary::distribution(result.fileSeconds);
    return s;
}

} // namespace tierscope
