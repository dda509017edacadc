#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// The record, kept in the target directory, of every file tierscope created there. It is how
// the storage commands know which files they may overwrite or delete: only these.
class StorageManifest {
  public:
    static constexpr const char* kFileName = ".tierscope-data.json";

    // Reads DIR/.tierscope-data.json; an absent file is an empty manifest. Throws WorkloadError
    // when it exists but is not a manifest (someone else's file of that name).
    static StorageManifest load(const std::string& dir);
    // Written to a temporary file and renamed, so a crash never leaves half a manifest.
    void save() const;

    const std::string& dir() const { return m_dir; }
    std::string pathOf(const std::string& name) const { return m_dir + "/" + name; }
    bool owns(const std::string& name) const { return m_files.count(name) > 0; }
    void add(const std::string& name, std::uint64_t size) { m_files[name] = size; }
    void remove(const std::string& name) { m_files.erase(name); }
    const std::map<std::string, std::uint64_t>& files() const { return m_files; }

    // Per-workload parameters of the prepared data (geometry, sizes).
    nlohmann::json& dataset(const std::string& workload) { return m_datasets[workload]; }
    const nlohmann::json* findDataset(const std::string& workload) const;
    void dropDataset(const std::string& workload) { m_datasets.erase(workload); }

    // Refuses (WorkloadError::Refused) when `name` exists in the directory and is not ours.
    void requireWritable(const std::string& name) const;

  private:
    std::string m_dir;
    std::map<std::string, std::uint64_t> m_files;
    nlohmann::json m_datasets = nlohmann::json::object();
};

} // namespace tierscope
