#include "collectors/storage/BlockStatCollector.h"
#include "collectors/storage/PathDevice.h"
#include "core/analysis/RunTimeline.h"
#include "core/analysis/SessionAnalysis.h"
#include "core/compare/Comparison.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;
constexpr double kMiB = 1024.0 * 1024.0;

bool has(const std::vector<BytesRoute::Confound>& confounds, const std::string& id) {
    for (const auto& c : confounds)
        if (c.id == id)
            return true;
    return false;
}

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

// The bytes route of a run: the engine's tier bytes beside the bytes of the device under the
// tier's directory, the NICs, the RDMA ports and the GPUs, and the confounds their ratios show.
class TestBytesRoute : public QObject {
    Q_OBJECT

  private slots:
    // The rules on their own: a device that read a quarter or more of what the engine read is
    // no confound; less is the page cache; almost nothing while the network carried the bytes
    // is a path the block layer cannot see; a GPU that received under half of what the engine
    // loaded into it is staged. Under 64 MiB nothing is judged, and a missing figure judges
    // nothing.
    void confoundRules() {
        BytesRoute r;
        r.device = "nvme1n1";
        r.engineTierBytes = 1024 * kMiB;
        r.deviceBytes = 300 * kMiB;
        QVERIFY(r.confounds().empty());
        r.deviceBytes = 200 * kMiB;
        QVERIFY(has(r.confounds(), "page-cache"));
        QVERIFY(r.confounds().front().text.find("20 %") != std::string::npos);
        r.deviceBytes = 0;
        QVERIFY(has(r.confounds(), "page-cache")); // no network to carry it: the page cache
        r.nicBytes = 600 * kMiB;
        QVERIFY(has(r.confounds(), "kernel-blind"));
        QVERIFY(!has(r.confounds(), "page-cache"));
        r.nicBytes.reset();
        r.rdmaBytes = 1000 * kMiB; // RDMA words already in bytes
        QVERIFY(has(r.confounds(), "kernel-blind"));
        r.engineTierBytes = 32 * kMiB; // too little to judge
        QVERIFY(r.confounds().empty());
        BytesRoute absent;
        absent.engineTierBytes = 1024 * kMiB; // no device recorded: nothing to compare
        QVERIFY(absent.confounds().empty());
        QVERIFY(absent.text().find("device unknown") != std::string::npos);

        BytesRoute gpu;
        gpu.engineGpuLoadBytes = 1024 * kMiB;
        gpu.gpuRxBytes = 400 * kMiB;
        QVERIFY(has(gpu.confounds(), "gpu-staging"));
        gpu.gpuRxBytes = 1000 * kMiB;
        QVERIFY(gpu.confounds().empty());
        QVERIFY(BytesRoute().empty());
    }

    // From the recorded series of a run: engine increases summed, every rate times its own
    // interval (the sample before the run starts the first one), a multipath head whose own
    // counters stayed at zero read through its paths, lo left out, RDMA and PCIe summed. The
    // route is a row of the run's checks and its confound a warning.
    void fromTheRecordedSeries() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("w.db").toStdString();
        std::int64_t session = 0, run = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = kStart;
            session = store.createSession(s);
            run = store.createRun(session, "load", "{}", kStart + 2 * kSecond, "e", "array");
            const nlohmann::json summary = {{"engine_endpoints", {"gpu:8000"}},
                                            {"kv_tier",
                                             {{"path", "/mnt/kv"},
                                              {"device", "nvme1n1"},
                                              {"members", nlohmann::json::array()},
                                              {"paths", {"nvme1c1n1", "nvme1c2n1"}}}}};
            store.finishRun(run, kStart + 6 * kSecond, "completed", summary.dump());
            store.finishSession(session, kStart + 10 * kSecond);
        }
        StoreWriter writer(db, {});
        auto metric = [&](const std::string& path, const char* unit) {
            return writer.defineMetric(session, {path, unit, "gauge", "{}"});
        };
        const auto tier = metric("engine/gpu:8000/kv_tier_read_bytes{tier=1:fs}", "bytes");
        const auto load = metric("engine/gpu:8000/kv_offload_load_bytes", "bytes");
        const auto head = metric("block/nvme1n1/read_bytes_per_s", "bytes/s");
        const auto path1 = metric("block/nvme1c1n1/read_bytes_per_s", "bytes/s");
        const auto path2 = metric("block/nvme1c2n1/read_bytes_per_s", "bytes/s");
        const auto other = metric("block/sda/read_bytes_per_s", "bytes/s");
        const auto nic = metric("host/net/eth0/rx_bytes_per_s", "bytes/s");
        const auto lo = metric("host/net/lo/rx_bytes_per_s", "bytes/s");
        const auto rdma = metric("host/rdma/mlx5_0/1/rx_bytes_per_s", "bytes/s");
        const auto gpu = metric("gpu/0/pcie_rx_bytes_per_s", "bytes/s");
        // One sample a second from 1 s to 8 s; the run is (2 s, 6 s]: four intervals.
        for (int i = 1; i <= 8; ++i) {
            const std::int64_t t = kStart + i * kSecond;
            writer.append(tier, t, 250 * kMiB);
            writer.append(load, t, 100 * kMiB);
            writer.append(head, t, 0);
            writer.append(path1, t, 30 * kMiB);
            writer.append(path2, t, 20 * kMiB);
            writer.append(other, t, 500 * kMiB);
            writer.append(nic, t, 10 * kMiB);
            writer.append(lo, t, 900 * kMiB);
            writer.append(rdma, t, 5 * kMiB);
            writer.append(gpu, t, 40 * kMiB);
        }
        writer.stop();
        Store store(db, Store::Mode::ReadOnly);
        // The tier's devices, for the storage-bound rule: the device and its paths.
        QCOMPARE(SessionAnalysis::tierDevices(store, session),
                 (std::set<std::string>{"nvme1c1n1", "nvme1c2n1", "nvme1n1"}));
        const auto info = *store.run(run);
        const auto t = RunTimeline::read(store, info);
        const auto& r = t.bytesRoute;
        QCOMPARE(*r.engineTierBytes, 1000 * kMiB);
        QCOMPARE(r.engineTierSource, std::string("vLLM offload tiers"));
        QCOMPARE(*r.engineGpuLoadBytes, 400 * kMiB);
        QCOMPARE(r.device, std::string("nvme1n1"));
        QCOMPARE(*r.deviceBytes, 200 * kMiB); // the head read nothing: its paths did
        QCOMPARE(r.belowBytes.size(), std::size_t(2));
        QCOMPARE(*r.nicBytes, 40 * kMiB);
        QCOMPARE(*r.rdmaBytes, 20 * kMiB);
        QCOMPARE(*r.gpuRxBytes, 160 * kMiB);
        const auto confounds = r.confounds();
        QVERIFY(has(confounds, "page-cache"));  // 200 MiB of 1000
        QVERIFY(has(confounds, "gpu-staging")); // 160 MiB of 400
        ComparisonSide side;
        side.runs = {info};
        side.requests = {{}};
        side.timelines = {t};
        bool route = false, warned = false;
        for (const auto& c : Comparison::runChecks(side)) {
            route = route || (c.name == "bytes_route" && c.status == "info" &&
                              c.detail.find("device nvme1n1 209.7 MB") != std::string::npos);
            warned = warned || (c.name == "bytes_route page-cache" && c.status == "warn");
        }
        QVERIFY2(route, r.text().c_str());
        QVERIFY(warned);
    }

    // The check on a device this machine has: the block device under the test's
    // scratch directory, read by the real collector from the real /proc/diskstats. Read with
    // O_DIRECT, the device carries what the "engine" read and nothing is flagged; read again
    // through the page cache, the device reads almost nothing and the page-cache confound is
    // flagged, in the second case only.
    void pageCacheIsFlaggedOnlyWhenTheCacheServes() {
        // The build tree, not /tmp: /tmp may be a tmpfs, which no block device is under.
        QTemporaryDir dir(QDir::currentPath() + "/bytesroute-XXXXXX");
        QVERIFY(dir.isValid());
        const auto tier = PathDevice::resolve(dir.path().toStdString());
        if (tier.device.empty())
            QSKIP(("no block device under the build tree: " + tier.why).c_str());
        const std::string file = dir.filePath("kv.bin").toStdString();
        constexpr std::size_t kChunk = 1 << 20, kChunks = 128;
        void* buffer = nullptr;
        QCOMPARE(::posix_memalign(&buffer, 4096, kChunk), 0);
        std::unique_ptr<void, decltype(&std::free)> owned(buffer, &std::free);
        std::memset(buffer, 0x5a, kChunk);
        {
            const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            QVERIFY(fd >= 0);
            for (std::size_t i = 0; i < kChunks; ++i)
                QCOMPARE(::write(fd, buffer, kChunk), static_cast<ssize_t>(kChunk));
            QCOMPARE(::fsync(fd), 0);
            QCOMPARE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
            ::close(fd);
        }
        auto readAll = [&](bool direct) {
            const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
            if (fd < 0)
                return false;
            std::size_t total = 0;
            for (ssize_t n; (n = ::read(fd, buffer, kChunk)) > 0;)
                total += static_cast<std::size_t>(n);
            ::close(fd);
            return total == kChunk * kChunks;
        };

        const std::string db = dir.filePath("w.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = nowNs();
            session = store.createSession(s);
        }
        StoreWriter writer(db, {});
        std::map<std::string, int> ids;
        auto store = [&](const std::vector<Reading>& readings, std::int64_t t) {
            for (const auto& r : readings) {
                auto it = ids.find(r.metric.path);
                if (it == ids.end())
                    it = ids.emplace(r.metric.path, writer.defineMetric(session, r.metric)).first;
                writer.append(it->second, t, r.value);
            }
        };
        const int engine = writer.defineMetric(
            session, {"engine/e/kv_tier_read_bytes{tier=1:fs}", "bytes", "gauge", "{}"});
        BlockStatCollector collector(SystemPaths{}, {});
        collector.sample(nowNs()); // the baseline
        std::vector<std::pair<std::int64_t, std::int64_t>> spans;
        for (const bool direct : {true, false}) {
            if (!direct)
                QVERIFY(readAll(false)); // the read that fills the page cache, before the run
            const std::int64_t t0 = nowNs();
            store(collector.sample(t0), t0);
            QVERIFY2(readAll(direct), direct ? "O_DIRECT read failed" : "buffered read failed");
            const std::int64_t t1 = nowNs();
            store(collector.sample(t1), t1);
            writer.append(engine, t1, kChunk * kChunks); // what the "engine" read from its tier
            spans.emplace_back(t0, t1);
        }
        writer.stop();
        std::vector<BytesRoute> routes;
        {
            Store rw(db, Store::Mode::ReadWrite);
            for (const auto& [t0, t1] : spans) {
                const auto run = rw.createRun(session, "load", "{}", t0, "e", "tier");
                const nlohmann::json summary = {{"engine_endpoints", {"e"}},
                                                {"kv_tier", tier.toJson()}};
                rw.finishRun(run, t1, "completed", summary.dump());
                routes.push_back(RunTimeline::read(rw, *rw.run(run)).bytesRoute);
            }
        }
        const auto& direct = routes[0];
        const auto& cached = routes[1];
        QVERIFY2(direct.deviceBytes && *direct.deviceBytes >= 0.9 * kChunk * kChunks,
                 direct.text().c_str());
        QVERIFY2(direct.confounds().empty(), direct.text().c_str());
        QVERIFY2(has(cached.confounds(), "page-cache"), cached.text().c_str());
    }
};

QTEST_GUILESS_MAIN(TestBytesRoute)
#include "tst_bytesroute.moc"
