#include "core/compare/Comparison.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/NoiseFloor.h"
#include "core/stats/GatePower.h"
#include "core/store/Store.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

using namespace tierscope;

// The A/A calibration's noise floor: the CV it recovers from simulated runs through the real
// comparison, the half-width it predicts, how a comparison shows it, and finding a calibration
// in a store.
namespace {

ComparisonSide aaSide(int runs, double sigma, std::mt19937_64& random) {
    std::normal_distribution<double> normal(0.0, sigma);
    ComparisonSide s;
    for (int r = 0; r < runs; ++r) {
        RunInfo run;
        run.id = r + 1;
        run.workload = "load";
        run.status = "completed";
        run.summaryJson =
            nlohmann::json{{"output_throughput", 1000 * std::exp(normal(random))}}.dump();
        s.runs.push_back(run);
    }
    return s;
}

} // namespace

class TestNoiseFloor : public QObject {
    Q_OBJECT
  private slots:
    // 8 runs per copy (14 degrees of freedom): the median calibration recovers the true CV
    // within 5 %, and about 70 % of single calibrations are within 20 % of it (the chi-square
    // of 14 degrees of freedom puts 71 % of sample sds within 20 % of sigma).
    void recoversAKnownCvWithEightRuns() {
        for (const double cv : {0.05, 0.15}) {
            std::mt19937_64 random(static_cast<std::uint64_t>(cv * 1000));
            const double sigma = GatePower::sigmaOfCv(cv);
            std::vector<double> found;
            for (int t = 0; t < 1000; ++t) {
                const auto floor = NoiseFloor::fromAa(
                    Comparison::compare(aaSide(8, sigma, random), aaSide(8, sigma, random)));
                found.push_back(floor.kpis.at("output_throughput").cv);
            }
            std::sort(found.begin(), found.end());
            const double median = found[found.size() / 2];
            const auto within = std::count_if(
                found.begin(), found.end(), [&](double c) { return std::abs(c / cv - 1) <= 0.2; });
            qInfo("true CV %.1f %%: median recovered %.2f %%, %lld of 1000 within 20 %%", cv * 100,
                  median * 100, static_cast<long long>(within));
            QVERIFY(std::abs(median / cv - 1) <= 0.05);
            QVERIFY(within >= 650 && within <= 780);
        }
    }

    // The floor is the half-width an unchanged system's interval has: over A/A comparisons of
    // 3 runs a side, each against a fresh calibration of 10 runs a copy, the change stays
    // within the floor in 95 % of them (the A/A change over the calibration's sigma is exactly
    // t-distributed on the calibration's 18 degrees of freedom, which the floor uses).
    void theFloorBoundsAaChangesAtItsLevel() {
        std::mt19937_64 random(5);
        const double sigma = GatePower::sigmaOfCv(0.08);
        int inside = 0;
        for (int t = 0; t < 2000; ++t) {
            const auto floor = NoiseFloor::fromAa(
                Comparison::compare(aaSide(10, sigma, random), aaSide(10, sigma, random)));
            const auto half = floor.halfWidth("output_throughput", 3, 3, 0.95);
            QVERIFY(half && *half > 0);
            auto kpis = Comparison::compare(aaSide(3, sigma, random), aaSide(3, sigma, random));
            floor.apply(kpis);
            const auto& k = kpis.front();
            QVERIFY(k.floor && std::abs(*k.floor - *half) < 1e-12);
            QCOMPARE(*k.floorCv, floor.kpis.at("output_throughput").cv);
            inside += k.withinFloor();
            QVERIFY(!floor.halfWidth("ttft_p50", 3, 3, 0.95));
            QVERIFY(!floor.halfWidth("output_throughput", 0, 3, 0.95));
        }
        qInfo("A/A changes of 3 runs a side within the floor: %d of 2000", inside);
        QVERIFY(inside >= 1860 && inside <= 1940);
    }

    // A session's calibration is found by its experiment's name and matched by variant; the
    // runs of a plan that names it carry the session.
    void foundInAStoreByItsExperimentsName() {
        QTemporaryDir dir;
        Store store(dir.filePath("w.db").toStdString(), Store::Mode::ReadWrite);
        const auto session = store.createSession(SessionInfo{});
        std::mt19937_64 random(3);
        std::normal_distribution<double> normal(0.0, 0.05);
        for (int rep = 1; rep <= 4; ++rep)
            for (const char* arm : {"disk", "disk-again"}) {
                const auto id = store.createRun(session, "load", "{}", rep * 10,
                                                "kv-calibration/load", arm, rep);
                store.finishRun(
                    id, rep * 10 + 5, "completed",
                    nlohmann::json{{"output_throughput", 500 * std::exp(normal(random))}}.dump());
            }
        const auto floor = NoiseFloor::load(store, session, "kv/load");
        QVERIFY(floor);
        QCOMPARE(floor->experiment, std::string("kv-calibration/load"));
        QCOMPARE(floor->kpis.at("output_throughput").runs, std::size_t(4));
        QVERIFY(!NoiseFloor::load(store, session + 1, "kv/load"));
        RunInfo named;
        named.paramsJson = nlohmann::json{{NoiseFloor::kParam, session}}.dump();
        QCOMPARE(*NoiseFloor::sessionOfRuns({RunInfo{}, named}), session);
        QVERIFY(!NoiseFloor::sessionOfRuns({RunInfo{}}));
    }
};

QTEST_GUILESS_MAIN(TestNoiseFloor)
#include "tst_noisefloor.moc"
