#pragma once

#include <memory>
#include <string>

namespace tierscope {

// One tierscope process at a time in a data directory: two `storage prepare` at once lost a
// manifest update in 6 of 6 trials (files no manifest listed, which `clean` never removes).
// The lock is flock(2) on the directory itself, so no file is added to it, and it goes with the
// process (a SIGKILL frees it). Readers of a data set (model-load, kv-restore runs) share it;
// whatever writes (prepare, clean, a checkpoint) holds it alone. Within a process one lock is
// kept per directory: the manifest a workload loads while its command holds one reuses it
// instead of waiting for itself, and a writer's need upgrades it.
class DirectoryLock {
  public:
    enum class Mode { Shared, Exclusive };

    // Takes, or reuses within this process, the lock of the directory open as `dirFd` (any
    // descriptor of it, O_PATH too). Throws WorkloadError (Refused) naming `shownPath` when
    // another process holds it in a conflicting mode: no waiting behind a run that may take
    // an hour.
    static std::shared_ptr<DirectoryLock> acquire(int dirFd, const std::string& shownPath,
                                                  Mode mode);

    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

  private:
    explicit DirectoryLock(int fd, Mode mode) : m_fd(fd), m_mode(mode) {}

    int m_fd;
    Mode m_mode;
};

} // namespace tierscope
