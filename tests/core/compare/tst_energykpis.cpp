#include "core/analysis/RunTimeline.h"
#include "core/compare/Comparison.h"
#include "core/compare/RunKpis.h"
#include "core/stats/TInterval.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;
constexpr double kIdleW = 60.0; // each GPU between runs: energy the runs must not count

// One planned run: its power per GPU (constant over its 10 s), and its output tokens.
struct Planned {
    const char* arm;
    double wattsPerGpu;
    std::optional<int> summaryTokens;    // total_output_tokens in its summary
    std::vector<StoredRequest> requests; // where the summary has none
    bool resetGpu1 = false;              // GPU 1's counter restarts mid-run
};

StoredRequest request(std::optional<int> outputTokens) {
    StoredRequest r;
    r.ok = true;
    r.ttftS = 0.1;
    r.e2eS = 1.0;
    r.outputTokens = outputTokens;
    return r;
}

std::vector<StoredRequest> requests(int n, std::optional<int> tokensEach) {
    return std::vector<StoredRequest>(static_cast<std::size_t>(n), request(tokensEach));
}

} // namespace

// joules_per_output_token: each run's GPU energy (the gpu/<n>/energy_j counters' increase
// over its span, over both GPUs) per output token, compared per arm with the run as the unit.
class TestEnergyKpis : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_db;
    std::vector<Planned> m_plan;
    std::vector<std::int64_t> m_runs;

    // Runs 20 s apart, 10 s each; two GPUs whose counters are sampled every second, at the
    // run's power inside a run and at kIdleW between runs.
    void record(std::int64_t session, const std::string& labels) {
        Store store(m_db, Store::Mode::ReadWrite);
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const auto& p = m_plan[i];
            const std::int64_t start = kStart + static_cast<std::int64_t>(i) * 20 * kSecond;
            const auto run = store.createRun(session, "load", R"({"concurrency":8})", start,
                                             "energy", p.arm, static_cast<int>(i));
            nlohmann::json summary = {{"completed", 10}, {"failed", 0}};
            summary["total_output_tokens"] =
                p.summaryTokens ? nlohmann::json(*p.summaryTokens) : nlohmann::json(nullptr);
            store.finishRun(run, start + 10 * kSecond, "completed", summary.dump());
            m_runs.push_back(run);
        }
        StoreWriter writer(m_db, {});
        int gpu[2];
        for (int g = 0; g < 2; ++g)
            gpu[g] = writer.defineMetric(
                session, {"gpu/" + std::to_string(g) + "/energy_j", "J", "counter", labels});
        double counter[2] = {1e6, 2e6};
        const int seconds = static_cast<int>(m_plan.size()) * 20;
        for (int s = 0; s <= seconds; ++s) {
            // The interval (s - 1, s]: inside run i when s - 1 >= 20 i and s <= 20 i + 10.
            const int i = (s - 1) / 20;
            const bool inRun = s > 0 && (s - 1) % 20 < 10 && i < static_cast<int>(m_plan.size());
            for (int g = 0; g < 2; ++g) {
                const double joules = s == 0  ? 0
                                      : inRun ? m_plan[static_cast<std::size_t>(i)].wattsPerGpu
                                              : kIdleW;
                counter[g] += joules;
                // A driver reload in the run's fifth second: GPU 1 counts from zero again.
                if (g == 1 && inRun && m_plan[static_cast<std::size_t>(i)].resetGpu1 &&
                    (s - 1) % 20 == 4)
                    counter[g] = joules;
                writer.append(gpu[g], kStart + s * kSecond, counter[g]);
            }
        }
        writer.stop();
    }

    ComparisonSide side(Store& store, const char* arm) {
        ComparisonSide out;
        out.label = arm;
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            if (std::string(m_plan[i].arm) != arm)
                continue;
            const auto run = *store.run(m_runs[i]);
            out.runs.push_back(run);
            out.requests.push_back(m_plan[i].requests);
            out.timelines.push_back(RunTimeline::read(store, run));
        }
        return out;
    }

    std::int64_t newSession() {
        Store store(m_db, Store::Mode::ReadWrite);
        SessionInfo s;
        s.startNs = kStart;
        const auto id = store.createSession(s);
        store.finishSession(id, kStart + 1000 * kSecond);
        return id;
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("w.db").toStdString();
        // Interleaved A B B A B A; A's tokens from its summaries, B's from its requests.
        m_plan = {{"A", 100, 1000, {}},
                  {"B", 75, std::nullopt, requests(10, 100)},
                  {"B", 80, std::nullopt, requests(10, 100), true},
                  {"A", 110, 1000, {}},
                  {"B", 70, std::nullopt, requests(10, 100)},
                  {"A", 105, 1000, {}}};
        record(newSession(), R"({"vendor":"nvidia","model":"H100","bus":"x"})");
    }

    // Per run: both GPUs' 10 s at the run's power, per 1000 tokens; the idle seconds around
    // the run and GPU 1's counter reset change nothing.
    void perRunExactly() {
        Store store(m_db, Store::Mode::ReadOnly);
        const double expected[] = {2.0, 1.5, 1.6, 2.2, 1.4, 2.1};
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const auto run = *store.run(m_runs[i]);
            const auto timeline = RunTimeline::read(store, run);
            QCOMPARE(timeline.gpuEnergy.gpus, 2);
            QCOMPARE(timeline.gpuEnergy.joules.value_or(-1), 2 * 10 * m_plan[i].wattsPerGpu);
            const auto k = RunKpis::of(run, m_plan[i].requests, &timeline);
            QCOMPARE(k.at("joules_per_output_token"), expected[i]);
            QCOMPARE(k.at(RunKpis::kEnergyIntegrated), 0.0);
        }
        const auto* d = RunKpis::find("joules_per_output_token");
        QVERIFY(d);
        QVERIFY(d->lowerIsBetter);
        QCOMPARE(d->unit, std::string("J/tok"));
    }

    // Per arm with its interval over the runs (the ratio of geometric means, Welch on the
    // logs), lower is better: B spends less energy per token.
    void armsWithAnIntervalOverRuns() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = side(store, "A"), b = side(store, "B");
        const auto kpis = Comparison::compare(a, b);
        const auto it = std::find_if(kpis.begin(), kpis.end(), [](const KpiComparison& k) {
            return k.name == "joules_per_output_token";
        });
        QVERIFY(it != kpis.end());
        QCOMPARE(it->runsA, (std::vector<double>{2.0, 2.2, 2.1}));
        QCOMPARE(it->runsB, (std::vector<double>{1.5, 1.6, 1.4}));
        QCOMPARE(it->countA, std::size_t(3));
        QCOMPARE(it->scale, KpiComparison::Scale::Ratio);
        QCOMPARE(it->a, std::cbrt(2.0 * 2.2 * 2.1));
        QCOMPARE(it->b, std::cbrt(1.5 * 1.6 * 1.4));
        const auto welch = TInterval::welchRatio({2.0, 2.2, 2.1}, {1.5, 1.6, 1.4});
        QVERIFY(welch && it->interval);
        QCOMPARE(it->interval->lo, welch->interval.lo);
        QCOMPARE(it->interval->hi, welch->interval.hi);
        QVERIFY(it->interval->hi < 1.0);
        QCOMPARE(it->verdict(), KpiComparison::Verdict::BetterB);
        QVERIFY2(!it->note.starts_with("integrated"), it->note.c_str());
    }

    // A run whose energy was integrated from power readings (DCMI) says so: in its figures and
    // in the KPI's note.
    void integratedEnergyIsMarked() {
        m_plan = {{"C", 50, 500, {}}};
        m_runs.clear();
        record(newSession(), R"({"vendor":"ascend","model":"910B","bus":"y","integrated":true})");
        Store store(m_db, Store::Mode::ReadOnly);
        const auto run = *store.run(m_runs[0]);
        const auto timeline = RunTimeline::read(store, run);
        QCOMPARE(timeline.gpuEnergy.integratedGpus, 2);
        const auto k = RunKpis::of(run, {}, &timeline);
        QCOMPARE(k.at("joules_per_output_token"), 2.0); // 2 x 10 s x 50 W / 500 tokens
        QCOMPARE(k.at(RunKpis::kEnergyIntegrated), 1.0);
        const auto c = side(store, "C");
        const auto kpis = Comparison::compare(c, c);
        const auto it = std::find_if(kpis.begin(), kpis.end(), [](const KpiComparison& kpi) {
            return kpi.name == "joules_per_output_token";
        });
        QVERIFY(it != kpis.end());
        QVERIFY2(it->note.starts_with(
                     "integrated from GPU power readings (no energy counter) on 2 of 2 runs"),
                 it->note.c_str());
    }

    // No energy series, or no known token count: no KPI, never a zero.
    void absentWithoutEnergyOrTokens() {
        m_plan = {{"D", 50, std::nullopt, requests(4, std::nullopt)}};
        m_runs.clear();
        record(newSession(), "{}");
        Store store(m_db, Store::Mode::ReadOnly);
        const auto run = *store.run(m_runs[0]);
        const auto timeline = RunTimeline::read(store, run);
        QVERIFY(timeline.gpuEnergy.joules);
        QVERIFY(!RunKpis::of(run, m_plan[0].requests, &timeline).count("joules_per_output_token"));
        // A session whose GPUs have no energy counter.
        const auto bare = newSession();
        std::int64_t id = 0;
        {
            Store rw(m_db, Store::Mode::ReadWrite);
            id = rw.createRun(bare, "load", "{}", kStart, "energy", "E");
            rw.finishRun(id, kStart + 10 * kSecond, "completed", R"({"total_output_tokens": 900})");
        }
        const auto plain = *store.run(id);
        const auto none = RunTimeline::read(store, plain);
        QVERIFY(!none.gpuEnergy.joules);
        QCOMPARE(none.gpuEnergy.gpus, 0);
        const auto k = RunKpis::of(plain, {}, &none);
        QVERIFY(!k.count("joules_per_output_token"));
        QVERIFY(!k.count(RunKpis::kEnergyIntegrated));
    }
};

QTEST_GUILESS_MAIN(TestEnergyKpis)
#include "tst_energykpis.moc"
