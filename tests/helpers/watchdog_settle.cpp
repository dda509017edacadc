// Linked into every suite. Qt Test runs each suite beside a watchdog thread ("QtTest Watchdog").
// When the suite ends, QThread::wait() returns as soon as that thread has finished its run, but
// the thread still holds a reference to its QThreadData (152 bytes) until its thread-local
// destructors run. On a busy machine the process reached exit() inside that window, and
// LeakSanitizer, which no longer scans a thread that is exiting, reported the QThreadData as a
// leak (tst_doclinks failed CI this way). This object's destructor runs at exit, before the leak
// check (registered when the sanitizer started, so it runs last), and waits, bounded, until no
// thread of that name is left.
#include <chrono>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace {

bool watchdogThreadAlive() {
    DIR* tasks = opendir("/proc/self/task");
    if (!tasks)
        return false;
    bool alive = false;
    while (const dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] == '.')
            continue;
        const int fd = openat(dirfd(tasks), (std::string(entry->d_name) + "/comm").c_str(),
                              O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; // the thread exited between readdir and openat
        char name[32] = {};
        const ssize_t n = read(fd, name, sizeof name - 1);
        close(fd);
        if (n > 0 && std::string_view(name, static_cast<size_t>(n)) == "QtTest Watchdog\n") {
            alive = true;
            break;
        }
    }
    closedir(tasks);
    return alive;
}

struct WatchdogSettle {
    ~WatchdogSettle() {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (watchdogThreadAlive() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
};

const WatchdogSettle settle;

} // namespace
