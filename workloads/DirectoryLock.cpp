#include "workloads/DirectoryLock.h"

#include "workloads/WorkloadError.h"

#include <cerrno>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

namespace {

std::mutex& registryMutex() {
    static std::mutex m;
    return m;
}

// The directories this process holds, by device and inode.
std::map<std::pair<dev_t, ino_t>, std::weak_ptr<DirectoryLock>>& registry() {
    static std::map<std::pair<dev_t, ino_t>, std::weak_ptr<DirectoryLock>> r;
    return r;
}

} // namespace

namespace {

[[noreturn]] void refuse(int error, const std::string& shownPath) {
    if (error == EWOULDBLOCK)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "another tierscope process is using " + shownPath +
                                " (preparing, running or cleaning its data); wait for it to "
                                "end, or use another directory");
    throw WorkloadError::fromErrno(error, "cannot lock", shownPath);
}

} // namespace

std::shared_ptr<DirectoryLock> DirectoryLock::acquire(int dirFd, const std::string& shownPath,
                                                      Mode mode) {
    struct stat st {};
    if (fstat(dirFd, &st) != 0)
        throw WorkloadError::fromErrno(errno, "cannot use", shownPath);
    const std::pair key{st.st_dev, st.st_ino};
    std::lock_guard lock(registryMutex());
    if (auto held = registry()[key].lock()) {
        if (mode == Mode::Exclusive && held->m_mode == Mode::Shared) {
            if (flock(held->m_fd, LOCK_EX | LOCK_NB) != 0)
                refuse(errno, shownPath);
            held->m_mode = Mode::Exclusive; // kept until the last user is done
        }
        return held;
    }
    // flock needs a descriptor that is more than a path: "." of the directory, opened read-only
    // (search permission is all it asks).
    const int fd = openat(dirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw WorkloadError::fromErrno(errno, "cannot use", shownPath);
    if (flock(fd, (mode == Mode::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        const int error = errno;
        close(fd);
        refuse(error, shownPath);
    }
    std::shared_ptr<DirectoryLock> held(new DirectoryLock(fd, mode));
    registry()[key] = held;
    return held;
}

DirectoryLock::~DirectoryLock() {
    close(m_fd); // releases the flock
}

} // namespace tierscope
