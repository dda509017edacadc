#include "TestSupport.h"
#include "collectors/Recorder.h"
#include "core/store/Store.h"
#include "core/util/WallClock.h"

#include <QTemporaryDir>
#include <atomic>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kBoot = 1'790'000'000'000'000'000; // the wall time at monotonic 0

// Both clocks set by hand.
class FakeClocks : public ClockSource {
  public:
    std::int64_t monotonicNs() const override { return mono; }
    std::int64_t wallNs() const override { return kBoot + mono + wallShift; }
    std::int64_t mono = 1'000 * kMs;
    std::int64_t wallShift = 0;
};

// The machine's monotonic clock with a wall clock the test can step.
class SteppableClocks : public ClockSource {
  public:
    std::int64_t monotonicNs() const override { return ClockSource::system().monotonicNs(); }
    std::int64_t wallNs() const override { return ClockSource::system().wallNs() + shift; }
    std::atomic<std::int64_t> shift{0};
};

} // namespace

class TestWallClock : public QObject {
    Q_OBJECT
  private slots:
    void mapsMonotonicTimeWithTheOffsetReadAtStart() {
        FakeClocks clocks;
        WallClock clock(clocks);
        QCOMPARE(clock.nowNs(), kBoot + clocks.mono);
        QCOMPARE(clock.mapNs(5'000 * kMs), kBoot + 5'000 * kMs);
        clocks.mono += 250 * kMs;
        QCOMPARE(clock.nowNs(), kBoot + clocks.mono);
    }

    void smallDriftIsNotAStep() {
        FakeClocks clocks;
        WallClock clock(clocks);
        clocks.wallShift = 100 * kMs; // exactly the threshold: not more than it
        QVERIFY(!clock.resync());
        clocks.wallShift = -60 * kMs;
        QVERIFY(!clock.resync());
        QCOMPARE(clock.nowNs(), kBoot + clocks.mono); // the offset read at start still holds
    }

    void aForwardStepIsAdoptedAtOnceAndReported() {
        FakeClocks clocks;
        WallClock clock(clocks);
        std::vector<WallClock::Step> reported;
        clock.onStep([&](const WallClock::Step& s) { reported.push_back(s); });
        const std::int64_t before = clock.nowNs();
        clocks.mono += 1'000 * kMs;
        clocks.wallShift = 3'600'000 * kMs; // an hour: a suspend, or a clock set right
        const auto step = clock.resync();
        QVERIFY(step);
        QCOMPARE(reported.size(), std::size_t(1));
        QCOMPARE(step->stepNs(), 3'600'000 * kMs);
        QCOMPARE(step->oldOffsetNs, kBoot);
        QCOMPARE(step->newOffsetNs, kBoot + 3'600'000 * kMs);
        QCOMPARE(step->atWallNs, kBoot + clocks.mono + clocks.wallShift);
        QCOMPARE(clock.nowNs(), kBoot + clocks.mono + clocks.wallShift);
        QVERIFY(clock.nowNs() > before);
        // A time point from before the step keeps the mapping it had.
        QCOMPARE(clock.mapNs(clocks.mono - 500 * kMs), kBoot + clocks.mono - 500 * kMs);
        QVERIFY(!clock.resync()); // reported once
    }

    void aBackwardStepIsSlewedSoTimeNeverGoesBack() {
        FakeClocks clocks;
        WallClock clock(clocks);
        std::int64_t last = clock.nowNs();
        clocks.mono += 100 * kMs;
        clocks.wallShift = -2'000 * kMs; // NTP steps the clock back by 2 s
        const auto step = clock.resync();
        QVERIFY(step);
        QCOMPARE(step->stepNs(), -2'000 * kMs);
        const std::int64_t stepMono = clocks.mono;
        for (int i = 0; i < 100; ++i) { // 5 s at 20 Hz
            clocks.mono += 50 * kMs;
            const std::int64_t t = clock.nowNs();
            QVERIFY2(t > last, qPrintable(QString("sample %1 went back in time").arg(i)));
            last = t;
            if (clocks.mono - stepMono <= 4'000 * kMs) // half speed while catching up
                QCOMPARE(t, kBoot + stepMono + (clocks.mono - stepMono) / 2);
            else // then the new offset exactly
                QCOMPARE(t, kBoot + clocks.mono - 2'000 * kMs);
        }
        QVERIFY(!clock.resync()); // slewing toward the new offset is not a new step
    }

    void aStepDuringASlewContinuesFromWhereTheMappingStands() {
        FakeClocks clocks;
        WallClock clock(clocks);
        clocks.wallShift = -1'000 * kMs;
        QVERIFY(clock.resync());
        clocks.mono += 400 * kMs; // 200 ms of the 1 s given back so far
        const std::int64_t before = clock.nowNs();
        QCOMPARE(before, kBoot + clocks.mono - 200 * kMs);
        clocks.wallShift = 5'000 * kMs; // and now forward
        const auto step = clock.resync();
        QVERIFY(step);
        QCOMPARE(step->stepNs(), 6'000 * kMs);
        QCOMPARE(clock.nowNs(), kBoot + clocks.mono + 5'000 * kMs);
    }

    // The recorder's scheduler re-reads the offset each second: a step shows up as a
    // clock-step event with both offsets, and later samples carry the new offset.
    void theRecorderStoresAClockStepEvent() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir().mkpath(dir.filePath("proc"));
        QDir().mkpath(dir.filePath("sys"));
        SteppableClocks clocks;
        Recorder::Options o;
        o.dbPath = dir.filePath("ws.db").toStdString();
        o.paths = {dir.filePath("proc").toStdString(), dir.filePath("sys").toStdString()};
        o.interval = std::chrono::milliseconds(100);
        o.clocks = &clocks;
        Recorder recorder(o);
        recorder.start();
        auto countEvents = [&] {
            Store store(o.dbPath, Store::Mode::ReadOnly);
            return store.db().queryInt("SELECT count(*) FROM event WHERE kind = 'clock-step'");
        };
        QTRY_VERIFY_WITH_TIMEOUT(recorder.stats().committedSamples > 0, 20000);
        QCOMPARE(countEvents(), 0);
        clocks.shift = 30'000 * kMs;
        QTRY_VERIFY_WITH_TIMEOUT(countEvents() == 1, 20000);
        auto eventTime = [&] {
            Store store(o.dbPath, Store::Mode::ReadOnly);
            auto q = store.db().prepare("SELECT t_ns FROM event WHERE kind = 'clock-step'");
            return q.step() ? q.columnInt(0) : std::int64_t(0);
        };
        auto newestSelf = [&] {
            Store store(o.dbPath, Store::Mode::ReadOnly);
            for (const auto& m : store.metrics(recorder.sessionId()))
                if (m.descriptor.path == "self/cpu_seconds_per_s") {
                    const auto samples = store.readRaw(m.id, 0, INT64_MAX);
                    return samples.empty() ? std::int64_t(0) : samples.back().tNs;
                }
            return std::int64_t(0);
        };
        // One more self-report after the step (once a second; later on a busy machine).
        const std::int64_t stepNs = eventTime();
        QTRY_VERIFY_WITH_TIMEOUT(newestSelf() >= stepNs, 30000);
        recorder.stop();

        Store store(o.dbPath, Store::Mode::ReadOnly);
        auto q = store.db().prepare("SELECT t_ns, text FROM event WHERE kind = 'clock-step'");
        QVERIFY(q.step());
        const std::int64_t eventNs = q.columnInt(0);
        const auto text = nlohmann::json::parse(q.columnText(1));
        // The step is measured between two readings of both clocks: a thread held between
        // them on a busy machine blurs it by that long, never by seconds.
        QVERIFY(std::abs(text["step_ms"].get<double>() - 30'000.0) < 1000.0);
        QVERIFY(text["new_offset_ns"].get<std::int64_t>() -
                    text["old_offset_ns"].get<std::int64_t>() >
                29'000 * kMs);
        std::vector<Sample> samples;
        for (const auto& m : store.metrics(recorder.sessionId()))
            if (m.descriptor.path == "self/cpu_seconds_per_s")
                samples = store.readRaw(m.id, 0, INT64_MAX);
        QVERIFY(samples.size() >= 2);
        std::int64_t widestGap = 0;
        for (std::size_t i = 1; i < samples.size(); ++i) {
            QVERIFY(samples[i].tNs > samples[i - 1].tNs);
            widestGap = std::max(widestGap, samples[i].tNs - samples[i - 1].tNs);
        }
        QVERIFY2(widestGap >= 30'000 * kMs, "the step does not show in the stored times");
        QVERIFY(samples.back().tNs >= eventNs);
        QVERIFY(samples.front().tNs < eventNs - 29'000 * kMs);
    }
};

QTEST_GUILESS_MAIN(TestWallClock)
#include "tst_wallclock.moc"
