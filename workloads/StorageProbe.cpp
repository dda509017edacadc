#include "workloads/StorageProbe.h"

#include "collectors/storage/NvmeIdentity.h"
#include "workloads/IoRunner.h"
#include "workloads/SpaceCheck.h"
#include "workloads/WorkloadError.h"

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kSmall = 4096, kLarge = 1u << 20;

// How long a phase may wait for its first completed block: a busy machine or a slow device can
// take longer than a whole phase for it, and a phase stopped before any block completed would
// measure nothing at all.
constexpr auto kFirstBlockLimit = std::chrono::seconds(60);

// Runs the job until it ends, the caller cancels, or `limit` passes with some bytes moved
// (kFirstBlockLimit at most).
IoRunner::Result timed(IoJob job, std::chrono::milliseconds limit,
                       const std::atomic<bool>* cancel) {
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    IoRunner runner(std::move(job));
    std::thread timer([&] {
        std::unique_lock lock(mutex);
        const auto start = std::chrono::steady_clock::now();
        auto due = [&] {
            const auto now = std::chrono::steady_clock::now();
            const bool moved = runner.bytesRead() + runner.bytesWritten() > 0;
            return now >= start + (moved ? std::chrono::milliseconds(limit)
                                         : std::chrono::milliseconds(kFirstBlockLimit));
        };
        while (!finished && !due() && !(cancel && cancel->load()))
            done.wait_for(lock, std::chrono::milliseconds(50));
        stop = true;
    });
    IoRunner::Result r;
    try {
        r = runner.run(&stop);
    } catch (...) {
        {
            std::lock_guard lock(mutex);
            finished = true;
        }
        done.notify_all();
        timer.join();
        throw;
    }
    {
        std::lock_guard lock(mutex);
        finished = true;
    }
    done.notify_all();
    timer.join();
    return r;
}

IoJob job(const std::string& file, std::uint64_t size, bool write, bool random, int depth,
          std::uint32_t block) {
    IoJob j;
    j.streams = {{{file, size}}};
    j.write = write;
    j.create = write;
    j.fsyncEachFile = write; // written means on the device, not in the page cache
    j.random = random;
    j.randomOps = random ? 1ULL << 40 : 0; // the timer ends it
    j.depth = depth;
    j.blockSize = block;
    return j;
}

std::string firstLine(const fs::path& p) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\n'))
        line.pop_back();
    return line;
}

struct Remove {
    std::string path;
    ~Remove() {
        std::error_code ignored;
        fs::remove(path, ignored);
    }
};

} // namespace

std::string StorageProbe::wholeDisk(unsigned major, unsigned minor, const std::string& sysRoot) {
    std::error_code error;
    const fs::path link =
        fs::path(sysRoot) / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor));
    const fs::path target = fs::canonical(link, error);
    if (error)
        return {};
    // A partition's directory sits inside its disk's and has a "partition" file.
    if (fs::exists(target / "partition"))
        return target.parent_path().filename().string();
    return target.filename().string();
}

void StorageProbe::identify(Result& result, const std::string& sysRoot) {
    if (result.device.empty())
        return;
    const fs::path block = fs::path(sysRoot) / "block" / result.device;
    for (const char* attr : {"wwid", "device/wwid", "device/serial", "serial"})
        if (result.serial = firstLine(block / attr); !result.serial.empty())
            break;
    if (const auto nvme = NvmeIdentity::of(result.device, sysRoot)) {
        result.subsysNqn = nvme->subsysNqn;
        result.nsid = nvme->nsid;
        result.transport = nvme->transport;
    }
}

std::string StorageProbe::storageName(const Result& result, const std::string& dir) {
    return result.device.empty() ? "workload " + dir : result.device;
}

StorageProbe::Result StorageProbe::run(const Options& o, const std::atomic<bool>* cancel) {
    struct stat st {};
    if (::stat(o.dir.c_str(), &st) != 0)
        throw WorkloadError::fromErrno(errno, "stat", o.dir);
    if (!S_ISDIR(st.st_mode))
        throw WorkloadError(WorkloadError::Kind::NotFound, o.dir + " is not a directory");
    const std::uint64_t size = std::max<std::uint64_t>(o.sizeBytes / kLarge * kLarge, kLarge);
    SpaceCheck::require(o.dir, size);
    Result out;
    out.device = wholeDisk(major(st.st_dev), minor(st.st_dev), "/sys");
    identify(out, "/sys");
    const std::string file =
        (fs::path(o.dir) / (".tierscope-probe-" + std::to_string(::getpid()) + ".bin")).string();
    Remove guard{file};
    const auto phase = o.duration / 4;
    const auto written = timed(job(file, size, true, false, 32, kLarge), phase, cancel);
    if (cancel && cancel->load())
        return out; // the caller stores nothing
    if (written.bytesWritten == 0 || written.seconds <= 0)
        throw WorkloadError(WorkloadError::Kind::Io, "the probe wrote nothing to " + o.dir);
    out.writeBytesPerS = static_cast<double>(written.bytesWritten) / written.seconds;
    out.direct = written.pageCacheBypassed();
    // Reads stay inside what was written, so none of them reads a hole.
    const std::uint64_t readable = written.bytesWritten / kLarge * kLarge;
    const auto seq = timed(job(file, readable, false, false, 32, kLarge), phase, cancel);
    if (seq.seconds > 0)
        out.readBytesPerS = static_cast<double>(seq.bytesRead) / seq.seconds;
    const auto rnd = timed(job(file, readable, false, true, 64, kSmall), phase, cancel);
    if (rnd.seconds > 0)
        out.randomReadIops = static_cast<double>(rnd.bytesRead) / kSmall / rnd.seconds;
    const auto qd1 = timed(job(file, readable, false, true, 1, kSmall), phase, cancel);
    if (qd1.bytesRead > 0)
        out.unloadedReadS = qd1.seconds / (static_cast<double>(qd1.bytesRead) / kSmall);
    out.direct = out.direct && seq.pageCacheBypassed() && rnd.pageCacheBypassed();
    return out;
}

} // namespace tierscope
