#include "workloads/StorageManifest.h"

#include "workloads/WorkloadError.h"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sys/stat.h>

namespace tierscope {

StorageManifest StorageManifest::load(const std::string& dir) {
    StorageManifest m;
    m.m_dir = dir;
    while (m.m_dir.size() > 1 && m.m_dir.back() == '/')
        m.m_dir.pop_back();
    struct stat st {};
    if (stat(m.m_dir.c_str(), &st) != 0)
        throw WorkloadError::fromErrno(errno, "cannot use", m.m_dir);
    if (!S_ISDIR(st.st_mode))
        throw WorkloadError(WorkloadError::Kind::NotFound, m.m_dir + " is not a directory");
    std::ifstream in(m.pathOf(kFileName));
    if (!in)
        return m;
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || doc.value("created_by", "") != "tierscope" ||
        !doc.contains("files") || !doc["files"].is_object())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            m.pathOf(kFileName) + " exists but is not a tierscope manifest");
    for (const auto& [name, size] : doc["files"].items())
        if (size.is_number_unsigned())
            m.m_files[name] = size.get<std::uint64_t>();
    if (doc.contains("datasets") && doc["datasets"].is_object())
        m.m_datasets = doc["datasets"];
    return m;
}

void StorageManifest::save() const {
    const nlohmann::json doc = {
        {"created_by", "tierscope"}, {"version", 1}, {"files", m_files}, {"datasets", m_datasets}};
    const std::string target = pathOf(kFileName);
    const std::string temporary = target + ".tmp";
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << doc.dump(1) << "\n";
        out.flush();
        if (!out)
            throw WorkloadError::fromErrno(errno ? errno : EIO, "cannot write", temporary);
    }
    if (std::rename(temporary.c_str(), target.c_str()) != 0)
        throw WorkloadError::fromErrno(errno, "cannot write", target);
}

const nlohmann::json* StorageManifest::findDataset(const std::string& workload) const {
    const auto it = m_datasets.find(workload);
    return it == m_datasets.end() ? nullptr : &*it;
}

void StorageManifest::requireWritable(const std::string& name) const {
    struct stat st {};
    if (lstat(pathOf(name).c_str(), &st) != 0 || owns(name))
        return;
    throw WorkloadError(WorkloadError::Kind::Refused,
                        pathOf(name) +
                            " exists and was not created by tierscope; refusing to overwrite it");
}

} // namespace tierscope
