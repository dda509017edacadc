#include "core/analysis/RunEnergy.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;

std::vector<Sample> at(std::initializer_list<std::pair<double, double>> secondsAndValues) {
    std::vector<Sample> out;
    for (const auto& [s, v] : secondsAndValues)
        out.push_back({kStart + static_cast<std::int64_t>(s * 1e9), v});
    return out;
}

} // namespace

// A run's GPU energy from the gpu/<n>/energy_j counters: each counter's increase over the run,
// added up over the GPUs that have one, and which of them were integrated from power.
class TestRunEnergy : public QObject {
    Q_OBJECT

  private slots:
    // The run is (0 s, 10 s]: its first increase starts at the last sample before it.
    void increaseOverTheRun() {
        const auto samples = at({{-2, 100}, {-1, 110}, {1, 130}, {5, 170}, {9, 200}, {11, 250}});
        QCOMPARE(RunEnergy::increase(samples, kStart, kStart + 10 * kSecond).value_or(-1), 90.0);
        // A sample exactly at the start is the baseline; one exactly at the end counts.
        const auto edges = at({{0, 1000}, {5, 1040}, {10, 1100}});
        QCOMPARE(RunEnergy::increase(edges, kStart, kStart + 10 * kSecond).value_or(-1), 100.0);
    }

    // A counter that went down restarted from zero (a driver reload): its new value is what it
    // counted since.
    void aResetCountsFromZero() {
        const auto samples = at({{0, 1000}, {2, 1050}, {4, 20}, {6, 60}});
        QCOMPARE(RunEnergy::increase(samples, kStart, kStart + 10 * kSecond).value_or(-1),
                 50.0 + 20.0 + 40.0);
    }

    // Recording that began inside the run: its first sample is the baseline, nothing before
    // it is guessed.
    void noSampleBeforeTheRun() {
        const auto samples = at({{2, 100}, {4, 150}, {7, 175}});
        QCOMPARE(RunEnergy::increase(samples, kStart, kStart + 10 * kSecond).value_or(-1), 75.0);
    }

    // One sample, or none, is no increase: absent, not zero.
    void nothingToDifferenceIsAbsent() {
        QVERIFY(!RunEnergy::increase(at({{3, 100}}), kStart, kStart + 10 * kSecond));
        QVERIFY(!RunEnergy::increase(at({{-3, 100}, {12, 200}}), kStart, kStart + 10 * kSecond));
        QVERIFY(!RunEnergy::increase({}, kStart, kStart + 10 * kSecond));
    }

    // From the store: every GPU's energy_j series adds up, and a series labelled integrated
    // (DCMI's power readings) is counted as such; other GPU series are not energy.
    void gpusAddUpFromTheStore() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string db = dir.filePath("w.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = kStart;
            session = store.createSession(s);
            store.finishSession(session, kStart + 20 * kSecond);
        }
        {
            StoreWriter writer(db, {});
            const auto nvidia =
                writer.defineMetric(session, {"gpu/0/energy_j", "J", "counter",
                                              R"({"vendor":"nvidia","model":"H100","bus":"x"})"});
            const auto ascend = writer.defineMetric(
                session, {"gpu/1/energy_j", "J", "counter",
                          R"({"vendor":"ascend","model":"910B","bus":"y","integrated":true})"});
            const auto power = writer.defineMetric(session, {"gpu/0/power_w", "W", "gauge", "{}"});
            const auto idle =
                writer.defineMetric(session, {"gpu/2/energy_j", "J", "counter", "{}"});
            for (int s = 0; s <= 12; ++s) {
                writer.append(nvidia, kStart + s * kSecond, 5e6 + 300.0 * s);
                writer.append(ascend, kStart + s * kSecond, 200.0 * s);
                writer.append(power, kStart + s * kSecond, 1e9);
            }
            writer.append(idle, kStart + 15 * kSecond, 7); // recorded after the run only
            writer.stop();
        }
        Store store(db, Store::Mode::ReadOnly);
        const auto e = RunEnergy::read(store, store.metrics(session), kStart + 2 * kSecond,
                                       kStart + 10 * kSecond);
        QCOMPARE(e.joules.value_or(-1), 8 * 300.0 + 8 * 200.0);
        QCOMPARE(e.gpus, 2);
        QCOMPARE(e.integratedGpus, 1);
        // Before anything was recorded: absent.
        QVERIFY(!RunEnergy::read(store, store.metrics(session), kStart - 100 * kSecond,
                                 kStart - 90 * kSecond)
                     .joules);
    }
};

QTEST_GUILESS_MAIN(TestRunEnergy)
#include "tst_runenergy.moc"
