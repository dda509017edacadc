#include "TestSupport.h"
#include "core/analysis/MultipathHeads.h"
#include "core/analysis/PathSkew.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

PathSkew::Path path(const std::string& name, std::optional<std::string> state,
                    std::optional<double> bytes, std::optional<double> qd = std::nullopt) {
    PathSkew::Path p;
    p.name = name;
    p.anaState = std::move(state);
    p.bytes = bytes;
    p.meanQueueDepth = qd;
    p.transport = "tcp";
    p.address = "192.168.10.20:4420";
    return p;
}

// nvme1n1 with two optimized paths that moved `first` and `second` MiB.
PathSkew::Head twoPaths(std::optional<std::string> policy, std::optional<double> first,
                        std::optional<double> second) {
    PathSkew::Head h;
    h.name = "nvme1n1";
    h.iopolicy = std::move(policy);
    h.paths = {
        path("nvme1c1n1", "optimized", first ? std::optional(*first * kMiB) : std::nullopt, 24.0),
        path("nvme1c2n1", "optimized", second ? std::optional(*second * kMiB) : std::nullopt, 0.6)};
    return h;
}

int count(const PathSkew::Result& r, PathSkew::Kind kind) {
    return static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(),
                                          [&](const auto& f) { return f.kind == kind; }));
}

} // namespace

class TestPathSkew : public QObject {
    Q_OBJECT
  private slots:
    void roundRobinSkewIsAFinding() {
        const auto r = PathSkew::judge(twoPaths("round-robin", 950, 50));
        QCOMPARE(r.findings.size(), std::size_t(1));
        QVERIFY(r.notes.empty());
        const auto& f = r.findings[0];
        QCOMPARE(f.kind, PathSkew::Kind::OnePathCarriesAll);
        QCOMPARE(f.device, std::string("nvme1n1"));
        QCOMPARE(f.path, std::string("nvme1c1n1"));
        QCOMPARE(*f.share, 0.95);
        QCOMPARE(*f.meanQueueDepth, 24.0);
        QCOMPARE(*f.state, std::string("optimized"));
        QCOMPARE(*f.iopolicy, std::string("round-robin"));
        QCOMPARE(f.text, std::string("nvme1c1n1 (tcp 192.168.10.20:4420) carried 95.0 % of "
                                     "nvme1n1's bytes with 2 optimized paths (mean queue depth "
                                     "24.0), although the round-robin iopolicy spreads I/O over "
                                     "them: the other paths are slow, failing over or "
                                     "reconnecting."));
        QCOMPARE(std::string(PathSkew::kindName(f.kind)), std::string("path-skew"));
    }

    void queueDepthSkewIsAFinding() {
        // The second path is the one carrying the load: the finding names it.
        const auto r = PathSkew::judge(twoPaths("queue-depth", 10, 990));
        QCOMPARE(count(r, PathSkew::Kind::OnePathCarriesAll), 1);
        QCOMPARE(r.findings[0].path, std::string("nvme1c2n1"));
        QCOMPARE(*r.findings[0].share, 0.99);
    }

    void numaSkewIsExpectedAndSaidSo() {
        const auto r = PathSkew::judge(twoPaths("numa", 1000, 0));
        QVERIFY(r.findings.empty());
        QCOMPARE(r.notes.size(), std::size_t(1));
        QVERIFY(r.notes[0].find("expected under the numa iopolicy") != std::string::npos);
        QVERIFY(r.notes[0].find("100.0 %") != std::string::npos);
    }

    void thresholdIsNinetyPercentOfTheBytes() {
        QCOMPARE(count(PathSkew::judge(twoPaths("round-robin", 900, 100)),
                       PathSkew::Kind::OnePathCarriesAll),
                 1);
        QCOMPARE(count(PathSkew::judge(twoPaths("round-robin", 899, 101)),
                       PathSkew::Kind::OnePathCarriesAll),
                 0);
        // An even split is far from it.
        QVERIFY(PathSkew::judge(twoPaths("round-robin", 500, 500)).findings.empty());
        // Too few bytes for a share to mean anything: 63 MiB in all.
        QVERIFY(PathSkew::judge(twoPaths("round-robin", 63, 0)).findings.empty());
        QCOMPARE(count(PathSkew::judge(twoPaths("round-robin", 64, 0)),
                       PathSkew::Kind::OnePathCarriesAll),
                 1);
    }

    void skewNeedsTwoOptimizedPaths() {
        // All I/O on the optimized path while the other is non-optimized is the kernel
        // honouring ANA: only the state is a finding.
        auto h = twoPaths("round-robin", 1000, 0);
        h.paths[1].anaState = "non-optimized";
        const auto r = PathSkew::judge(h);
        QCOMPARE(r.findings.size(), std::size_t(1));
        QCOMPARE(r.findings[0].kind, PathSkew::Kind::NotOptimized);
        QCOMPARE(r.findings[0].path, std::string("nvme1c2n1"));
        QCOMPARE(*r.findings[0].state, std::string("non-optimized"));
        QVERIFY(!r.findings[0].share);
        QVERIFY(r.notes.empty());

        PathSkew::Head one;
        one.name = "nvme2n1";
        one.iopolicy = "round-robin";
        one.paths = {path("nvme2c2n1", "optimized", 1000 * kMiB)};
        QVERIFY(PathSkew::judge(one).findings.empty());
    }

    void absentDataGivesNoFinding() {
        QVERIFY(PathSkew::judge(twoPaths(std::nullopt, 1000, 0)).findings.empty());
        QVERIFY(PathSkew::judge(twoPaths(std::nullopt, 1000, 0)).notes.empty());
        // One path's bytes unknown: the other's share is unknown too, not 100 %.
        QVERIFY(PathSkew::judge(twoPaths("round-robin", 1000, std::nullopt)).findings.empty());
        QVERIFY(
            PathSkew::judge(twoPaths("round-robin", std::nullopt, std::nullopt)).findings.empty());
        // Without ANA states nothing says the paths are optimized: no skew, no state finding.
        auto h = twoPaths("round-robin", 1000, 0);
        for (auto& p : h.paths)
            p.anaState.reset();
        QVERIFY(PathSkew::judge(h).findings.empty());
        // No traffic at all.
        QVERIFY(PathSkew::judge(twoPaths("round-robin", 0, 0)).findings.empty());
        // A policy this code does not know is not judged.
        QVERIFY(PathSkew::judge(twoPaths("service-time", 1000, 0)).findings.empty());
        QVERIFY(PathSkew::judge(std::vector<PathSkew::Head>{}).findings.empty());
    }

    void unusablePathStatesAreFindings() {
        PathSkew::Head h;
        h.name = "nvme4n1";
        h.iopolicy = "queue-depth";
        h.paths = {path("nvme4c4n1", "optimized", std::nullopt),
                   path("nvme4c5n1", "inaccessible", std::nullopt),
                   path("nvme4c6n1", "persistent-loss", std::nullopt),
                   path("nvme4c7n1", "change", std::nullopt),
                   path("nvme4c8n1", "bogus", std::nullopt)};
        const auto r = PathSkew::judge(h);
        QCOMPARE(r.findings.size(), std::size_t(3));
        QCOMPARE(count(r, PathSkew::Kind::Inaccessible), 3);
        QCOMPARE(r.findings[0].path, std::string("nvme4c5n1"));
        QCOMPARE(r.findings[0].text,
                 std::string("nvme4c5n1 (tcp 192.168.10.20:4420), a path of nvme4n1, is "
                             "inaccessible (ANA): it carries no I/O until the target makes it "
                             "accessible again."));
        QCOMPARE(*r.findings[1].state, std::string("persistent-loss"));
        QCOMPARE(*r.findings[2].state, std::string("change"));
        QCOMPARE(std::string(PathSkew::kindName(r.findings[0].kind)),
                 std::string("path-inaccessible"));
    }

    void headsFromTheDeviceTable() {
        const auto rec = [](const std::string& name, nlohmann::json attrs) {
            return DeviceRecord{"block", name, attrs.dump()};
        };
        const std::vector<DeviceRecord> devices = {
            rec("nvme1c2n1", {{"path_of", "nvme1n1"},
                              {"ana_state", "non-optimized"},
                              {"transport", "rdma"},
                              {"traddr", "192.168.20.20"},
                              {"trsvcid", "4420"},
                              {"iopolicy", "round-robin"}}),
            rec("nvme1c1n1", {{"path_of", "nvme1n1"}, {"transport", "tcp"}}),
            rec("nvme1c4n1",
                {{"path_of", "nvme1n1"}, {"traddr", "fd00:10::20"}, {"trsvcid", "4420"}}),
            rec("nvme1n1", {{"iopolicy", "queue-depth"}}),
            rec("nvme0n1", {{"transport", "pcie"}}),
            {"nvme-controller", "nvme1", R"({"path_of":"nvme9n1"})"},
            {"block", "broken", "not json"},
        };
        const auto heads = MultipathHeads::fromDevices(devices);
        QCOMPARE(heads.size(), std::size_t(1));
        QCOMPARE(heads[0].name, std::string("nvme1n1"));
        QCOMPARE(*heads[0].iopolicy, std::string("queue-depth")); // the head's own record wins
        QCOMPARE(heads[0].paths.size(), std::size_t(3));
        QCOMPARE(heads[0].paths[2].address, std::string("[fd00:10::20]:4420"));
        QCOMPARE(heads[0].paths[0].name, std::string("nvme1c1n1"));
        QVERIFY(!heads[0].paths[0].anaState);
        QCOMPARE(heads[0].paths[0].address, std::string());
        QCOMPARE(heads[0].paths[1].address, std::string("192.168.20.20:4420"));
        QCOMPARE(heads[0].paths[1].transport, std::string("rdma"));
        QCOMPARE(*heads[0].paths[1].anaState, std::string("non-optimized"));
        QVERIFY(!heads[0].paths[1].bytes);
        QVERIFY(MultipathHeads::fromDevices({rec("nvme0n1", {{"iopolicy", "numa"}})}).empty());
    }

    // Bytes are the integral of the stored per-path rates over the span; queue depth is their
    // time-weighted mean. Samples every 100 ms for 10 s.
    void trafficFromTheStoredBlockSeries() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("ws.db").toStdString();
        const std::int64_t start = 1'700'000'000'000'000'000;
        const std::int64_t tenth = 100'000'000;
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = start;
            session = store.createSession(info);
            store.finishSession(session, start + 100 * tenth);
        }
        {
            StoreWriter writer(db, {});
            auto define = [&](const std::string& p, const char* unit) {
                return writer.defineMetric(session, {p, unit, "gauge", "{}"});
            };
            const auto r1 = define("block/nvme1c1n1/read_bytes_per_s", "bytes/s");
            const auto w1 = define("block/nvme1c1n1/write_bytes_per_s", "bytes/s");
            const auto q1 = define("block/nvme1c1n1/queue_depth", "1");
            const auto r2 = define("block/nvme1c2n1/read_bytes_per_s", "bytes/s");
            for (int i = 0; i <= 100; ++i) {
                const std::int64_t t = start + i * tenth;
                writer.append(r1, t, 100 * kMiB);
                writer.append(w1, t, 10 * kMiB);
                writer.append(q1, t, i < 50 ? 2.0 : 6.0);
                writer.append(r2, t, 5 * kMiB);
            }
            writer.stop();
        }
        PathSkew::Head h;
        h.name = "nvme1n1";
        h.paths = {path("nvme1c1n1", "optimized", std::nullopt),
                   path("nvme1c2n1", "optimized", std::nullopt),
                   path("nvme1c3n1", "optimized", std::nullopt)};
        std::vector<PathSkew::Head> heads{h};
        Store store(db, Store::Mode::ReadOnly);
        MultipathHeads::addTraffic(heads, store, session, start, start + 100 * tenth);
        const auto& p = heads[0].paths;
        // 100 intervals of 100 ms end in the span: 10 s of 110 MiB/s.
        QCOMPARE(*p[0].bytes, 1100 * kMiB);
        // Samples 1..49 at 2, 50..100 at 6: (49 * 2 + 51 * 6) / 100.
        QCOMPARE(*p[0].meanQueueDepth, (49 * 2.0 + 51 * 6.0) / 100);
        QVERIFY(!p[1].bytes); // no write series recorded for it: unknown, not its reads alone
        QVERIFY(!p[1].meanQueueDepth);
        QVERIFY(!p[2].bytes);
        // A span with a single sample in it has no interval: nothing.
        auto again = std::vector<PathSkew::Head>{h};
        MultipathHeads::addTraffic(again, store, session, start, start);
        QVERIFY(!again[0].paths[0].bytes);
    }
};

QTEST_GUILESS_MAIN(TestPathSkew)
#include "tst_pathskew.moc"
