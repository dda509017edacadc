#include "workloads/StorageManifest.h"

#include "core/util/FileDescriptor.h"
#include "workloads/DataFileName.h"
#include "workloads/DirectoryLock.h"
#include "workloads/WorkloadError.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tierscope {

namespace {

WorkloadError refused(const std::string& message) {
    return {WorkloadError::Kind::Refused, message};
}

template <typename T> nlohmann::json orNull(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// The file's birth time in ns, where the filesystem reports one (ext4, xfs, btrfs, tmpfs do;
// NFS and older kernels may not).
std::optional<std::int64_t> birthOf(const struct statx& sx) {
    if (!(sx.stx_mask & STATX_BTIME))
        return std::nullopt;
    return static_cast<std::int64_t>(sx.stx_btime.tv_sec) * 1'000'000'000LL +
           static_cast<std::int64_t>(sx.stx_btime.tv_nsec);
}

} // namespace

StorageManifest::StorageManifest(StorageManifest&& other) noexcept
    : m_dir(std::move(other.m_dir)), m_dirFd(std::exchange(other.m_dirFd, -1)),
      m_lock(std::move(other.m_lock)), m_files(std::move(other.m_files)),
      m_datasets(std::move(other.m_datasets)) {}

StorageManifest& StorageManifest::operator=(StorageManifest&& other) noexcept {
    if (this != &other) {
        if (m_dirFd >= 0)
            close(m_dirFd);
        m_dir = std::move(other.m_dir);
        m_dirFd = std::exchange(other.m_dirFd, -1);
        m_lock = std::move(other.m_lock);
        m_files = std::move(other.m_files);
        m_datasets = std::move(other.m_datasets);
    }
    return *this;
}

StorageManifest::~StorageManifest() {
    if (m_dirFd >= 0)
        close(m_dirFd);
}

StorageManifest StorageManifest::load(const std::string& dir, Access access) {
    StorageManifest m;
    m.m_dir = dir;
    while (m.m_dir.size() > 1 && m.m_dir.back() == '/')
        m.m_dir.pop_back();
    // Every later operation is relative to this descriptor, so renaming the directory or
    // planting symlinks in it cannot send one elsewhere.
    m.m_dirFd = open(m.m_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (m.m_dirFd < 0) {
        if (errno == ENOTDIR)
            throw WorkloadError(WorkloadError::Kind::NotFound, m.m_dir + " is not a directory");
        throw WorkloadError::fromErrno(errno, "cannot use", m.m_dir);
    }
    m.m_lock = DirectoryLock::acquire(m.m_dirFd, m.m_dir,
                                      access == Access::Read ? DirectoryLock::Mode::Shared
                                                             : DirectoryLock::Mode::Exclusive);
    const std::string text = m.readManifestText();
    if (text.empty())
        return m;
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || doc.value("created_by", "") != "tierscope" ||
        !doc.contains("files") || !doc["files"].is_object())
        throw refused(m.pathOf(kFileName) + " exists but is not a tierscope manifest");
    for (const auto& [name, value] : doc["files"].items()) {
        Entry e;
        if (value.is_number_unsigned()) {
            e.size = value.get<std::uint64_t>(); // written before inodes were recorded
        } else if (value.is_object()) {
            if (value.contains("size") && value["size"].is_number_unsigned())
                e.size = value["size"].get<std::uint64_t>();
            if (value.contains("inode") && value["inode"].is_number_unsigned())
                e.inode = value["inode"].get<std::uint64_t>();
            if (value.contains("birth_ns") && value["birth_ns"].is_number_integer())
                e.birthNs = value["birth_ns"].get<std::int64_t>();
        }
        m.m_files[name] = e;
    }
    if (doc.contains("datasets") && doc["datasets"].is_object())
        m.m_datasets = doc["datasets"];
    return m;
}

// Empty when there is no manifest. O_NONBLOCK: a FIFO planted under the name must not hang us.
std::string StorageManifest::readManifestText() const {
    const int fd = openat(m_dirFd, kFileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return {};
        if (errno == ELOOP)
            throw refused(pathOf(kFileName) + " is a symlink, not a tierscope manifest");
        throw WorkloadError::fromErrno(errno, "cannot read", pathOf(kFileName));
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        throw refused(pathOf(kFileName) + " is not a regular file, not a tierscope manifest");
    }
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            close(fd);
            throw WorkloadError::fromErrno(error, "cannot read", pathOf(kFileName));
        }
        if (n == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    close(fd);
    if (text.empty()) // an empty file is not a manifest either
        throw refused(pathOf(kFileName) + " exists but is not a tierscope manifest");
    return text;
}

void StorageManifest::save() const {
    nlohmann::json files = nlohmann::json::object();
    for (const auto& [name, e] : m_files)
        files[name] = {
            {"size", orNull(e.size)}, {"inode", orNull(e.inode)}, {"birth_ns", orNull(e.birthNs)}};
    const nlohmann::json doc = {
        {"created_by", "tierscope"}, {"version", 3}, {"files", files}, {"datasets", m_datasets}};
    const std::string text = doc.dump(1) + "\n";
    const std::string temporary = pathOf(kTempName);
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = openat(m_dirFd, kTempName, flags, 0644);
    if (fd < 0 && errno == EEXIST) {
        // A regular file is what a crash between write and rename leaves; anything else (a
        // symlink, a FIFO) was put there by someone, and is left for a person to look at.
        struct stat st {};
        if (fstatat(m_dirFd, kTempName, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            throw refused(temporary + " exists and is not a file tierscope left there; "
                                      "refusing to write the manifest through it");
        if (unlinkat(m_dirFd, kTempName, 0) != 0 && errno != ENOENT)
            throw WorkloadError::fromErrno(errno, "cannot remove", temporary);
        fd = openat(m_dirFd, kTempName, flags, 0644);
    }
    if (fd < 0) {
        if (errno == EEXIST)
            throw refused(temporary + " keeps reappearing; is another tierscope writing here?");
        throw WorkloadError::fromErrno(errno, "cannot write", temporary);
    }
    const bool written = FileDescriptor::writeAll(fd, text) && fsync(fd) == 0;
    const int error = errno;
    close(fd);
    if (!written) {
        unlinkat(m_dirFd, kTempName, 0);
        throw WorkloadError::fromErrno(error ? error : EIO, "cannot write", temporary);
    }
    if (renameat(m_dirFd, kTempName, m_dirFd, kFileName) != 0) {
        const int renameError = errno;
        unlinkat(m_dirFd, kTempName, 0);
        throw WorkloadError::fromErrno(renameError, "cannot write", pathOf(kFileName));
    }
}

std::uint64_t StorageManifest::create(const std::string& name) {
    if (DataFileName::workloadOf(name).empty())
        throw refused(pathOf(name) + " is not a name tierscope gives its files");
    const int fd =
        openat(m_dirFd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST || errno == ELOOP)
            throw refused(pathOf(name) +
                          " exists and was not created by tierscope; refusing to overwrite it");
        throw WorkloadError::fromErrno(errno, "cannot create", pathOf(name));
    }
    struct statx sx {};
    const bool known = statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) == 0;
    const int error = errno;
    close(fd);
    if (!known)
        throw WorkloadError::fromErrno(error, "cannot stat", pathOf(name));
    auto& entry = m_files[name];
    entry.inode = static_cast<std::uint64_t>(sx.stx_ino);
    entry.birthNs = birthOf(sx);
    return entry.inode.value();
}

std::optional<std::string> StorageManifest::removeOwned(const std::string& name) {
    const auto it = m_files.find(name);
    const auto refusal = [&](const std::string& why) {
        return std::optional<std::string>(pathOf(name) + " " + why + "; not deleted");
    };
    if (it == m_files.end())
        return refusal("is not in the manifest");
    if (DataFileName::workloadOf(name).empty())
        return refusal("is not a name tierscope gives its files");
    struct statx st {};
    if (statx(m_dirFd, name.c_str(), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) !=
        0) {
        if (errno != ENOENT)
            return refusal(std::string("cannot be checked: ") + std::strerror(errno));
        m_files.erase(it);
        return std::nullopt;
    }
    const Entry& e = it->second;
    if (S_ISLNK(st.stx_mode))
        return refusal("is a symlink, not the file tierscope created");
    if (!S_ISREG(st.stx_mode))
        return refusal("is not a regular file");
    if (!e.inode || !e.size)
        return refusal("was recorded without its inode (by an older tierscope, or just before a "
                       "crash), so it cannot be told from a file put in its place; delete it "
                       "yourself if it is tierscope's");
    if (static_cast<std::uint64_t>(st.stx_ino) != *e.inode)
        return refusal("is not the file tierscope created (inode " + std::to_string(st.stx_ino) +
                       ", recorded " + std::to_string(*e.inode) + ")");
    // Same inode, another birth: the file was deleted and its inode given to a new one.
    if (e.birthNs && birthOf(st) != e.birthNs)
        return refusal("is not the file tierscope created: it has the recorded inode but " +
                       std::string(birthOf(st) ? "another birth time" : "no birth time") +
                       ", so the inode was given to a file created since");
    if (st.stx_nlink != 1)
        return refusal("has other hard links");
    if (static_cast<std::uint64_t>(st.stx_size) > *e.size)
        return refusal("is larger (" + std::to_string(st.stx_size) +
                       " bytes) than tierscope made it (" + std::to_string(*e.size) + ")");
    // The entry checked is the entry unlinked: unlinkat never follows a symlink, so a swap in
    // between can only make us remove a name from this directory, never a file elsewhere.
    if (unlinkat(m_dirFd, name.c_str(), 0) != 0 && errno != ENOENT)
        throw WorkloadError::fromErrno(errno, "cannot remove", pathOf(name));
    m_files.erase(it);
    return std::nullopt;
}

void StorageManifest::removeManifestFile() {
    if (unlinkat(m_dirFd, kFileName, 0) != 0 && errno != ENOENT)
        throw WorkloadError::fromErrno(errno, "cannot remove", pathOf(kFileName));
}

const nlohmann::json* StorageManifest::findDataset(const std::string& workload) const {
    const auto it = m_datasets.find(workload);
    return it == m_datasets.end() ? nullptr : &*it;
}

void StorageManifest::requireWritable(const std::string& name) const {
    struct stat st {};
    if (fstatat(m_dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || owns(name))
        return;
    throw refused(pathOf(name) +
                  " exists and was not created by tierscope; refusing to overwrite it");
}

} // namespace tierscope
