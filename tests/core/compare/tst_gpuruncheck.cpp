#include "TestSupport.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/GpuRunCheck.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;

// One run of one GPU whose throttled series has `throttled` ones among `samples`.
GpuRunCheck::Side throttledSide(std::int64_t run, std::size_t samples, std::size_t throttled) {
    GpuRunCheck::Gpu gpu;
    gpu.name = "gpu0";
    gpu.samples = samples;
    gpu.throttled = throttled;
    return {{{run, {gpu}}}, {}, {}};
}

GpuRunCheck::Side linkSide(double width, double widthMax, double speed, double speedMax,
                           bool busy) {
    GpuRunCheck::Gpu gpu;
    gpu.name = "gpu1";
    gpu.busy = busy;
    gpu.widthPeak = width;
    gpu.widthMax = widthMax;
    gpu.speedPeakGts = speed;
    gpu.speedMaxGts = speedMax;
    return {{{5, {gpu}}}, {}, {}};
}

} // namespace

// The GPU side's validity: the rule on known series values, then the recorded series and
// device tables through the store to the comparison's warnings and Checks rows.
class TestGpuRunCheck : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_runA = 0, m_runB = 0;

  private slots:
    // Recorded series and device tables, through the store, to the comparison.
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("w.db").toStdString();
        std::int64_t sessionA = 0, sessionB = 0;
        {
            Store store(m_db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = kStart;
            sessionA = store.createSession(s);
            m_runA = store.createRun(sessionA, "load", "{}", kStart, "e", "disk");
            store.addRequests(m_runA, {test::answered(2.0), test::answered(2.2)});
            store.finishRun(m_runA, kStart + 100 * kSecond, "completed", "{}");
            store.addDevices(sessionA, {{"gpu", "gpu0", R"({"compute_partition": "SPX"})"}});
            store.finishSession(sessionA, kStart + 100 * kSecond);
            s.startNs = kStart + 1000 * kSecond;
            sessionB = store.createSession(s);
            m_runB = store.createRun(sessionB, "load", "{}", s.startNs, "e", "array");
            store.addRequests(m_runB, {test::answered(0.5), test::answered(0.6)});
            store.finishRun(m_runB, s.startNs + 100 * kSecond, "completed", "{}");
            store.addDevices(sessionB, {{"gpu", "gpu0", R"({"compute_partition": "CPX"})"}});
            store.finishSession(sessionB, s.startNs + 100 * kSecond);
        }
        StoreWriter writer(m_db, {});
        auto series = [&](std::int64_t session, const char* what, const char* unit) {
            return writer.defineMetric(session,
                                       {std::string("gpu/0/") + what, unit, "gauge", "{}"});
        };
        // A: 200 samples 0.5 s apart, 4 throttled (2 %); a full x16 link at its maximum.
        const auto throttledA = series(sessionA, "throttled", "1");
        const auto busyA = series(sessionA, "busy_pct", "percent");
        const auto widthA = series(sessionA, "pcie_link_width", "1");
        const auto widthMaxA = series(sessionA, "pcie_link_width_max", "1");
        for (int i = 0; i < 200; ++i) {
            const std::int64_t t = kStart + i * kSecond / 2;
            writer.append(throttledA, t, i % 50 == 0 ? 1 : 0);
            writer.append(busyA, t, 80);
            writer.append(widthA, t, 16);
            writer.append(widthMaxA, t, 16);
        }
        // B: 1 throttled sample in 200 (0.5 %); the link idles at Gen1 and never passes Gen4
        // of Gen5 while busy.
        const std::int64_t startB = kStart + 1000 * kSecond;
        const auto throttledB = series(sessionB, "throttled", "1");
        const auto busyB = series(sessionB, "busy_pct", "percent");
        const auto speedB = series(sessionB, "pcie_link_speed_gts", "GT/s");
        const auto speedMaxB = series(sessionB, "pcie_link_speed_max_gts", "GT/s");
        for (int i = 0; i < 200; ++i) {
            const std::int64_t t = startB + i * kSecond / 2;
            writer.append(throttledB, t, i == 100 ? 1 : 0);
            writer.append(busyB, t, i < 20 ? 0 : 90);
            writer.append(speedB, t, i < 20 ? 2.5 : 16);
            writer.append(speedMaxB, t, 32);
        }
        writer.stop();
    }

    void aRunThrottledForTwoPercentIsFlagged() {
        const auto flags = GpuRunCheck::of(throttledSide(7, 150, 3), {});
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].side, 'A');
        QCOMPARE(flags[0].run, std::int64_t(7));
        QCOMPARE(flags[0].check, std::string("gpu_throttle"));
        QCOMPARE(flags[0].text, std::string("gpu0 throttled in 3 of 150 samples (2.0 %), above "
                                            "1.0 % of the run"));
    }

    void aRunThrottledForHalfAPercentIsNot() {
        QVERIFY(GpuRunCheck::of(throttledSide(7, 200, 1), throttledSide(8, 200, 1)).empty());
        // Exactly the limit is not more than it.
        QVERIFY(GpuRunCheck::of({}, throttledSide(8, 100, 1)).empty());
        const auto flags = GpuRunCheck::of({}, throttledSide(8, 100, 2));
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].side, 'B');
    }

    void aLinkBelowItsMaximumIsFlagged() {
        auto flags = GpuRunCheck::of({}, linkSide(8, 16, 32, 32, true));
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].check, std::string("gpu_pcie_link"));
        QCOMPARE(flags[0].run, std::int64_t(5));
        QCOMPARE(flags[0].text, std::string("PCIe link below its maximum while the GPU was busy: "
                                            "gpu1 at most x8 of x16"));
        flags = GpuRunCheck::of(linkSide(16, 16, 16, 32, true), {});
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].text, std::string("PCIe link below its maximum while the GPU was busy: "
                                            "gpu1 at most 16 of 32 GT/s"));
        QVERIFY(GpuRunCheck::of(linkSide(16, 16, 32, 32, true), {}).empty());
    }

    // A link trains down while its GPU idles: an idle run's low link is no evidence.
    void anIdleGpusLowLinkIsNotFlagged() {
        QVERIFY(GpuRunCheck::of(linkSide(4, 16, 2.5, 32, false), {}).empty());
    }

    void aPartitionMismatchFlagsBothSides() {
        GpuRunCheck::Side a, b;
        a.computePartitions = {"SPX"};
        a.memoryPartitions = {"NPS1"};
        b.computePartitions = {"CPX"};
        b.memoryPartitions = {"NPS1"};
        const auto flags = GpuRunCheck::of(a, b);
        QCOMPARE(flags.size(), std::size_t(2));
        for (const auto& f : flags) {
            QCOMPARE(f.check, std::string("gpu_partition"));
            QCOMPARE(f.run, std::int64_t(0));
            QCOMPARE(f.text, std::string("compute partition SPX on A's GPUs, CPX on B's"));
        }
        QVERIFY(flags[0].side != flags[1].side);
        b.computePartitions = {"SPX"};
        QVERIFY(GpuRunCheck::of(a, b).empty());
    }

    void absentDataGivesNoFlag() {
        QVERIFY(GpuRunCheck::of({}, {}).empty());
        // A run with a GPU that reported neither throttling nor a link.
        GpuRunCheck::Gpu quiet;
        quiet.name = "gpu0";
        quiet.busy = true;
        GpuRunCheck::Side side{{{3, {quiet}}}, {}, {}};
        QVERIFY(GpuRunCheck::of(side, side).empty());
        // A link with no maximum reported, and a partition mode on one side only.
        GpuRunCheck::Gpu noMax = quiet;
        noMax.widthPeak = 8;
        noMax.speedPeakGts = 16;
        GpuRunCheck::Side oneSided{{{4, {noMax}}}, {"CPX"}, {"NPS4"}};
        QVERIFY(GpuRunCheck::of(oneSided, side).empty());
    }

    void recordedRunsReachTheComparison() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = ComparisonBuilder::resolve(store, "run:" + std::to_string(m_runA));
        const auto b = ComparisonBuilder::resolve(store, "run:" + std::to_string(m_runB));
        const auto sideA = GpuRunCheck::read(store, a);
        QCOMPARE(sideA.runs.size(), std::size_t(1));
        QCOMPARE(sideA.runs[0].gpus.size(), std::size_t(1));
        QCOMPARE(sideA.runs[0].gpus[0].name, std::string("gpu0"));
        QCOMPARE(sideA.runs[0].gpus[0].samples, std::size_t(200));
        QCOMPARE(sideA.runs[0].gpus[0].throttled, std::size_t(4));
        QCOMPARE(sideA.computePartitions, std::set<std::string>{"SPX"});
        QVERIFY(sideA.memoryPartitions.empty());

        const auto result = ComparisonBuilder::build(store, a, b, {});
        auto warned = [&](const std::string& text) {
            return std::find(result.warnings.begin(), result.warnings.end(), text) !=
                   result.warnings.end();
        };
        const std::string runA = "A: run " + std::to_string(m_runA) + ": ";
        const std::string runB = "B: run " + std::to_string(m_runB) + ": ";
        QVERIFY(warned(runA + "gpu_throttle: gpu0 throttled in 4 of 200 samples (2.0 %), above "
                              "1.0 % of the run"));
        QVERIFY(warned(runB + "gpu_pcie_link: PCIe link below its maximum while the GPU was "
                              "busy: gpu0 at most 16 of 32 GT/s"));
        QVERIFY(warned("B: gpu_partition: compute partition SPX on A's GPUs, CPX on B's"));
        QVERIFY(warned("A: gpu_partition: compute partition SPX on A's GPUs, CPX on B's"));
        // B's half-percent throttling and A's full link are no flag.
        for (const auto& w : result.warnings) {
            QVERIFY2(!w.starts_with(runB + "gpu_throttle"), w.c_str());
            QVERIFY2(!w.starts_with(runA + "gpu_pcie_link"), w.c_str());
        }
        QVERIFY(std::any_of(result.runChecks.begin(), result.runChecks.end(), [&](const auto& c) {
            return c.first == 'A' && c.second.run == m_runA && c.second.name == "gpu_throttle" &&
                   c.second.status == "warn";
        }));
        // Only warnings: nothing here makes the comparison INVALID.
        QVERIFY(result.invalid.empty());
    }
};

QTEST_GUILESS_MAIN(TestGpuRunCheck)
#include "tst_gpuruncheck.moc"
