// tierscope's io_uring engine against fio on the same file, in the same run: sequential 1 MiB
// reads at QD 32 and QD 1, 4 KiB random reads at QD 64, and sequential 1 MiB writes ending in
// fsync (into a preallocated and into a sparse file). Both use io_uring and O_DIRECT. The order
// alternates per repetition, so drift on a shared disk hits both; the figure is the median of
// tierscope's bandwidth over fio's.
//
//   bench_storage_fio [DIR] [FILE_SIZE] [PATTERN_FILTER] [REPETITIONS]
//   defaults: ./bench-storage, 1GiB, every pattern, 3
#include "BenchSupport.h"
#include "core/util/SizeParser.h"
#include "workloads/IoRunner.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

using namespace tierscope;

namespace {

struct Pattern {
    const char* name;
    const char* fioRw;
    std::uint32_t blockSize;
    int depth;
    bool random;
    bool write;
    bool preallocate = false; // written into an fallocated file, else into a sparse one
};

// Both tools write into a file laid out the same way before the clock starts, as fio does on
// its own: allocated extents (fio's default --fallocate=native) or a sparse file of full size.
void layOut(const std::string& path, std::uint64_t size, bool preallocate) {
    unlink(path.c_str());
    const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    const int rc = fd < 0        ? -1
                   : preallocate ? fallocate(fd, 0, 0, static_cast<off_t>(size))
                                 : ftruncate(fd, static_cast<off_t>(size));
    if (fd < 0 || rc != 0) {
        std::perror(path.c_str());
        std::exit(1);
    }
    close(fd);
}

std::string capture(const std::string& command) {
    std::string out;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buffer[4096];
        while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe))
            out.append(buffer, n);
        pclose(pipe);
    }
    return out;
}

// fio's own bandwidth figure, bytes/s.
double runFio(const Pattern& p, const std::string& file, std::uint64_t size, std::uint64_t io) {
    char command[1024];
    std::snprintf(command, sizeof command,
                  "fio --name=bench --filename=%s --rw=%s --bs=%u --iodepth=%d "
                  "--ioengine=io_uring --direct=1 --size=%llu --io_size=%llu %s "
                  "--randrepeat=0 --norandommap --output-format=json 2>/dev/null",
                  file.c_str(), p.fioRw, p.blockSize, p.depth,
                  static_cast<unsigned long long>(size), static_cast<unsigned long long>(io),
                  !p.write        ? ""
                  : p.preallocate ? "--end_fsync=1 --fallocate=native"
                                  : "--end_fsync=1 --fallocate=none");
    const auto doc = nlohmann::json::parse(capture(command), nullptr, false);
    if (doc.is_discarded() || !doc.contains("jobs")) {
        std::fprintf(stderr, "fio failed: %s\n", command);
        std::exit(1);
    }
    return doc["jobs"][0][p.write ? "write" : "read"]["bw_bytes"].get<double>();
}

double runTierscope(const Pattern& p, const std::string& file, std::uint64_t size,
                    std::uint64_t io) {
    IoJob job;
    job.streams = {{{file, size}}};
    job.blockSize = p.blockSize;
    job.depth = p.depth;
    job.random = p.random;
    job.randomOps = p.random ? io / p.blockSize : 0;
    job.write = p.write;
    job.fsyncEachFile = p.write;
    const auto r = IoRunner(job).run();
    if (!r.pageCacheBypassed()) {
        std::fprintf(stderr, "O_DIRECT refused on %s: the comparison would be meaningless\n",
                     file.c_str());
        std::exit(1);
    }
    return static_cast<double>(p.write ? r.bytesWritten : r.bytesRead) / r.seconds;
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : "bench-storage";
    const std::uint64_t size =
        argc > 2 ? SizeParser::parse(argv[2]).value_or(1ULL << 30) : 1ULL << 30;
    std::filesystem::create_directories(dir);
    auto manifest = StorageManifest::load(dir);
    std::printf("bench_storage_fio: %s, %llu MiB file, %s\n", dir.c_str(),
                static_cast<unsigned long long>(size >> 20), capture("fio --version").c_str());
    IoRunner(StorageDataset::prepareModelLoad(manifest, size, 1)).run();
    const std::string file = manifest.pathOf(StorageDataset::shardName(0, 1));
    const std::string scratch = dir + "/fio-write-scratch";

    const Pattern patterns[] = {
        {"seq read 1 MiB QD32", "read", 1 << 20, 32, false, false},
        {"seq read 1 MiB QD1", "read", 1 << 20, 1, false, false},
        {"rand read 4 KiB QD64", "randread", 4096, 64, true, false},
        {"seq write 1 MiB QD32 + fsync, preallocated", "write", 1 << 20, 32, false, true, true},
        {"seq write 1 MiB QD32 + fsync, sparse file", "write", 1 << 20, 32, false, true, false},
    };
    const std::string only = argc > 3 ? argv[3] : "";
    const int repetitions = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
    std::printf("%-44s %14s %14s %8s\n", "pattern", "tierscope MB/s", "fio MB/s", "ratio");
    for (const auto& p : patterns) {
        const std::uint64_t io = p.random ? std::min<std::uint64_t>(size, 256ULL << 20) : size;
        const std::string target = p.write ? scratch : file;
        std::vector<double> ours, theirs, ratios;
        if (std::string(p.name).find(only) == std::string::npos)
            continue;
        for (int rep = 0; rep < repetitions; ++rep) {
            for (int turn = 0; turn < 2; ++turn) {
                if (p.write)
                    layOut(scratch, size, p.preallocate);
                if ((turn == 0) == (rep % 2 == 0))
                    ours.push_back(runTierscope(p, target, size, io));
                else
                    theirs.push_back(runFio(p, target, size, io));
            }
            ratios.push_back(ours.back() / theirs.back());
            if (std::getenv("BENCH_VERBOSE"))
                std::printf("  rep %d: tierscope %.1f MB/s, fio %.1f MB/s\n", rep,
                            ours.back() / 1e6, theirs.back() / 1e6);
        }
        std::printf("%-44s %14.1f %14.1f %8.3f\n", p.name, bench::median(ours) / 1e6,
                    bench::median(theirs) / 1e6, bench::median(ratios));
        std::fflush(stdout);
    }
    unlink(scratch.c_str());
    StorageDataset::remove(manifest, "");
    std::remove(manifest.pathOf(StorageManifest::kFileName).c_str());
    return 0;
}
