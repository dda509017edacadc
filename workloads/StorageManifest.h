#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

class DirectoryLock;

// The record, kept in the target directory, of every file tierscope created there. It is how
// the storage commands know which files they may overwrite or delete: only these. The manifest
// is data anyone who can write the directory can edit, so it is never trusted with a path:
// every file operation is relative to a descriptor of the directory, never follows a symlink,
// and deletes only a regular file under one of tierscope's names whose inode is the recorded one.
class StorageManifest {
  public:
    static constexpr const char* kFileName = ".tierscope-data.json";
    static constexpr const char* kTempName = ".tierscope-data.json.tmp";

    // What tierscope recorded about one file. The inode is known once the file exists; an
    // entry without one (an older tierscope's manifest, or a crash between recording the
    // name and creating the file) is never deleted. An inode alone does not name a file: a
    // filesystem gives a freed inode to the next file created (ext4 did, to a model shard
    // copied in under the same name), so its birth time (statx) is recorded too where the
    // filesystem keeps one, to the nanosecond.
    struct Entry {
        std::optional<std::uint64_t> size;
        std::optional<std::uint64_t> inode;
        std::optional<std::int64_t> birthNs;
    };

    // Reads DIR/.tierscope-data.json; an absent file is an empty manifest. Throws WorkloadError
    // when it exists but is not a manifest (someone else's file of that name, or a symlink),
    // and when another process holds the directory (DirectoryLock): from load to destruction,
    // no other tierscope reads or writes this manifest.
    enum class Access { Read, Write };
    static StorageManifest load(const std::string& dir, Access access = Access::Write);
    StorageManifest(StorageManifest&& other) noexcept;
    StorageManifest& operator=(StorageManifest&& other) noexcept;
    StorageManifest(const StorageManifest&) = delete;
    StorageManifest& operator=(const StorageManifest&) = delete;
    ~StorageManifest();

    // Written to a temporary file (created exclusively, never through a symlink) and renamed,
    // so a crash never leaves half a manifest.
    void save() const;

    const std::string& dir() const { return m_dir; }
    std::string pathOf(const std::string& name) const { return m_dir + "/" + name; }
    bool owns(const std::string& name) const { return m_files.count(name) > 0; }
    // Records a name about to be created, with its final size.
    void add(const std::string& name, std::uint64_t size) { m_files[name] = {size, {}, {}}; }
    const std::map<std::string, Entry>& files() const { return m_files; }

    // Creates NAME empty (O_CREAT|O_EXCL|O_NOFOLLOW in the directory) and records its inode,
    // which it returns. Refuses (WorkloadError::Refused) when anything of that name exists.
    std::uint64_t create(const std::string& name);
    // Deletes NAME when it is provably the file tierscope created: one of tierscope's names,
    // a regular file (not a symlink) directly in the directory, with one link, the recorded
    // inode and birth time and at most the recorded size (an interrupted write leaves it
    // shorter). Returns
    // nothing when the file is gone (deleted, or already missing) and the entry forgotten;
    // otherwise why it refused, and the entry is kept, so the refusal is reported again.
    std::optional<std::string> removeOwned(const std::string& name);
    // Deletes the manifest file itself.
    void removeManifestFile();

    // Per-workload parameters of the prepared data (geometry, sizes).
    nlohmann::json& dataset(const std::string& workload) { return m_datasets[workload]; }
    const nlohmann::json* findDataset(const std::string& workload) const;
    void dropDataset(const std::string& workload) { m_datasets.erase(workload); }

    // Refuses (WorkloadError::Refused) when `name` exists in the directory and is not ours.
    void requireWritable(const std::string& name) const;

  private:
    StorageManifest() = default;
    std::string readManifestText() const;

    std::string m_dir;
    int m_dirFd = -1;
    std::shared_ptr<DirectoryLock> m_lock; // held from load to destruction
    std::map<std::string, Entry> m_files;
    nlohmann::json m_datasets = nlohmann::json::object();
};

} // namespace tierscope
