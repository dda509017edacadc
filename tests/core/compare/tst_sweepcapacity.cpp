#include "core/compare/ComparisonBuilder.h"
#include "core/compare/Gate.h"
#include "core/compare/SloBound.h"
#include "core/compare/SweepCapacity.h"
#include "core/report/ComparisonReport.h"
#include "core/store/Store.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace tierscope;

// A load sweep's capacity: the bracket each side's points give, the conservative interval of
// B's capacity over A's, its gate, and the one figure every view prints. The verdicts at the
// points are made by hand (runs whose TTFTs are far inside or far outside the SLO), so nothing
// here depends on timing.
class TestSweepCapacity : public QObject {
    Q_OBJECT
  private:
    static SweepCurve curve(const std::vector<std::pair<double, bool>>& holds) {
        SweepCurve c;
        c.mode = "rate";
        std::string error;
        c.slos = {*SloBound::parse("ttft_p99<=1s", error)};
        for (const auto& [load, ok] : holds) {
            SweepCurve::Point p;
            p.load = load;
            p.holds = ok;
            c.points.push_back(p);
        }
        return c;
    }
    static Gate gate(const std::string& text) {
        std::string error;
        return *Gate::parse(text, error);
    }

    // Three runs at each point, every request's TTFT `ttft` seconds: 0.1 s holds under
    // "ttft_p99<=1s", 5 s does not.
    static void sweep(Store& store, std::int64_t session, const std::string& arm,
                      const std::vector<std::pair<double, double>>& points) {
        for (int rep = 1; rep <= 3; ++rep)
            for (const auto& [rate, ttft] : points) {
                const nlohmann::json params = {
                    {"rate", rate},          {"concurrency", 0},
                    {"sweep_mode", "rate"},  {"sweep_point", "rate " + std::to_string(rate)},
                    {"sweep_probe", "grid"}, {"slo", {"ttft_p99<=1s"}}};
                const auto run =
                    store.createRun(session, "load", params.dump(), 1000, "plan/load", arm, rep);
                std::vector<RequestRecord> requests(4);
                for (std::size_t i = 0; i < requests.size(); ++i) {
                    requests[i].index = static_cast<std::int64_t>(i);
                    requests[i].httpStatus = 200;
                    requests[i].ttftS = ttft + 0.001 * rep; // a little run-to-run spread
                    requests[i].e2eS = ttft + 0.1;
                    requests[i].outputTokens = 8;
                }
                store.addRequests(run, requests);
                store.finishRun(run, 2000, "completed",
                                nlohmann::json{{"request_throughput", rate}}.dump());
            }
    }

  private slots:
    // [holdsAt, failsAt) on each side gives [hB / fA, fB / hA] for B/A, estimate hB / hA.
    void theIntervalIsTheBracketsRatio() {
        std::string why;
        const auto a = curve({{1, true}, {2, true}, {4, false}, {8, false}});
        const auto b = curve({{1, true}, {2, true}, {4, true}, {8, false}});
        const auto k = SweepCapacity::compare(a, b, 8, 8, why);
        QVERIFY(k);
        QCOMPARE(k->name, std::string("max_rate_at_slo"));
        QCOMPARE(k->unit, std::string("req/s"));
        QCOMPARE(k->a, 2.0);
        QCOMPARE(k->b, 4.0);
        QCOMPARE(k->relative(), 1.0);
        QCOMPARE(k->relativeInterval()->lo, 0.0); // 4 / 4 - 1
        QCOMPARE(k->relativeInterval()->hi, 3.0); // 8 / 2 - 1
        // +29 % is inside [0 %, +300 %]: not shown. 0 % is its lower end: shown.
        QCOMPARE(gate("max_rate_at_slo >= +29%").judge(*k).verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(gate("max_rate_at_slo >= 0%").judge(*k).verdict, Gate::Verdict::Pass);
        QCOMPARE(gate("max_rate_at_slo <= -10%").judge(*k).verdict, Gate::Verdict::Fail);
    }

    // Bisection points count like grid points; a hold above the first failure does not raise
    // the capacity (SloSearch's rule).
    void bisectionAndNonMonotonePoints() {
        const auto a = curve({{1, true}, {4, false}, {2, true}, {3, false}});
        const auto ba = SweepCapacity::bracket(a);
        QCOMPARE(*ba.holdsAt, 2.0);
        QCOMPARE(*ba.failsAt, 3.0);
        const auto b = curve({{1, true}, {2, false}, {4, true}});
        const auto bb = SweepCapacity::bracket(b);
        QCOMPARE(*bb.holdsAt, 1.0);
        QCOMPARE(*bb.failsAt, 2.0);
    }

    // A side that holds at its highest point has a capacity above it: B's upper end is
    // unbounded, A's makes the lower end -100 %.
    void notReachedWithinTheGridIsAnUnboundedEnd() {
        std::string why;
        const auto reached = curve({{1, true}, {2, true}, {4, false}});
        const auto above = curve({{1, true}, {2, true}, {4, true}, {8, true}});
        const auto up = SweepCapacity::compare(reached, above, 6, 6, why);
        QVERIFY(up);
        QCOMPARE(up->relativeInterval()->lo, 1.0); // 8 / 4 - 1
        QVERIFY(std::isinf(up->relativeInterval()->hi) && up->relativeInterval()->hi > 0);
        QCOMPARE(up->relative(), 3.0);
        QCOMPARE(gate("max_rate_at_slo >= +29%").judge(*up).verdict, Gate::Verdict::Pass);
        QCOMPARE(gate("max_rate_at_slo >= +150%").judge(*up).verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(up->relativeText(), std::string("+300.0 % [+100.0 %, unbounded]"));
        // A factor gate reads the same brackets, and says so: never "infx".
        const auto factor = gate("max_rate_at_slo >= 1.5x").judge(*up);
        QCOMPARE(factor.verdict, Gate::Verdict::Pass);
        QVERIFY2(factor.reason.find("B/A 4.000x, interval of the brackets [2.000x, unbounded]") !=
                     std::string::npos,
                 factor.reason.c_str());
        QCOMPARE(up->verdict(), KpiComparison::Verdict::BetterB);

        const auto down = SweepCapacity::compare(above, reached, 6, 6, why);
        QVERIFY(down);
        QCOMPARE(down->relativeInterval()->lo, -1.0); // 2 / inf - 1
        QCOMPARE(down->relativeInterval()->hi, -0.5); // 4 / 8 - 1
        QCOMPARE(gate("max_rate_at_slo >= +29%").judge(*down).verdict, Gate::Verdict::Fail);
        QCOMPARE(down->verdict(), KpiComparison::Verdict::BetterA);

        const auto both = SweepCapacity::compare(above, above, 6, 6, why);
        QVERIFY(both);
        QCOMPARE(both->relativeInterval()->lo, -1.0);
        QVERIFY(std::isinf(both->relativeInterval()->hi));
        QCOMPARE(both->verdict(), KpiComparison::Verdict::NoSignificantDifference);
        QCOMPARE(gate("max_rate_at_slo >= +29%").judge(*both).verdict, Gate::Verdict::Inconclusive);
    }

    // The SLOs fail at a side's lowest point: no capacity, nothing compared.
    void noCapacityIsNotCompared() {
        std::string why;
        const auto none = curve({{1, false}, {2, false}});
        const auto some = curve({{1, true}, {2, false}});
        QVERIFY(!SweepCapacity::compare(none, some, 4, 4, why));
        QVERIFY2(why.find("A has no capacity") == 0, why.c_str());
        QVERIFY(why.find("fail at its lowest point, 1 req/s") != std::string::npos);
        QVERIFY(!SweepCapacity::compare(some, none, 4, 4, why));
        QVERIFY2(why.find("B has no capacity") == 0, why.c_str());
    }

    void anSloCannotBoundACapacity() {
        std::string error;
        QVERIFY(!SloBound::parse("max_rate_at_slo>=5", error));
        QVERIFY(error.find("capacity") != std::string::npos);
    }

    // From stored runs to every view: the curves, no pooled per-run rows, the gate on the
    // interval, and text, JSON, Markdown, HTML and CSV printing the one figure.
    void storedSweepsCompareByCapacityInEveryView() {
        QTemporaryDir dir;
        Store store(dir.filePath("c.db").toStdString(), Store::Mode::ReadWrite);
        const auto session = store.createSession(SessionInfo{});
        sweep(store, session, "slow", {{1, 0.1}, {2, 0.1}, {4, 5}, {8, 5}});
        sweep(store, session, "fast", {{1, 0.1}, {2, 0.1}, {4, 0.1}, {8, 0.1}});
        const auto a = ComparisonBuilder::arm(store, "plan/load", "slow", "slow", session);
        const auto b = ComparisonBuilder::arm(store, "plan/load", "fast", "fast", session);
        ComparisonBuilder::Options o;
        o.gates = {gate("max_rate_at_slo >= +29%"), gate("ttft_p50 <= -10%")};
        const auto in = ComparisonBuilder::build(store, a, b, o);
        QCOMPARE(in.kpis.size(), std::size_t(1)); // no per-run row pools the points
        const auto& k = in.kpis.front();
        QCOMPARE(k.name, std::string("max_rate_at_slo"));
        QCOMPARE(k.a, 2.0);
        QCOMPARE(k.b, 8.0);
        QCOMPARE(k.countA, std::size_t(12));
        QCOMPARE(in.gates.size(), std::size_t(2));
        QCOMPARE(in.gates[0].second.verdict, Gate::Verdict::Pass);
        QCOMPARE(in.gates[1].second.verdict, Gate::Verdict::Inconclusive);
        QVERIFY(std::any_of(in.warnings.begin(), in.warnings.end(), [](const std::string& w) {
            return w.find("A and B are load sweeps") == 0;
        }));

        QCOMPARE(in.curves.size(), std::size_t(2));
        QCOMPARE(in.curves[0].series, std::string("slow"));
        QCOMPARE(in.curves[0].mode, std::string("rate"));
        QCOMPARE(in.curves[0].points.size(), std::size_t(4));
        QCOMPARE(in.curves[0].points[2].load, 4.0);
        QCOMPARE(in.curves[0].points[2].holds, std::optional<bool>(false));
        QCOMPARE(in.curves[0].points[1].holds, std::optional<bool>(true));
        QCOMPARE(in.curves[0].points[1].probe, std::string("grid"));
        QCOMPARE(in.curves[0].points[1].kpis.at("ttft_p99").runs, std::size_t(3));
        QCOMPARE(in.curves[1].points[3].holds, std::optional<bool>(true));

        const auto json = nlohmann::json::parse(ComparisonReport::json(in));
        const auto& row = json["kpis"][0];
        QCOMPARE(row["kpi"].get<std::string>(), std::string("max_rate_at_slo"));
        QCOMPARE(row["a"].get<double>(), 2.0);
        QCOMPARE(row["b"].get<double>(), 8.0);
        QCOMPARE(row["relative"].get<double>(), 3.0);
        QCOMPARE(row["ci95_change"][0].get<double>(), 1.0); // 8 / 4 - 1
        QVERIFY(row["ci95_change"][1].is_null());           // unbounded: B held at 8
        QCOMPARE(json["gates"][0]["verdict"].get<std::string>(), std::string("pass"));
        QCOMPARE(json["sweep_curves"].size(), std::size_t(2));
        QCOMPARE(json["sweep_curves"][0]["points"][2]["holds"].get<bool>(), false);
        QCOMPARE(json["sweep_curves"][0]["slo"][0].get<std::string>(), std::string("ttft_p99<=1s"));
        const std::string text = ComparisonReport::text(in);
        QVERIFY2(text.find("+300.0 %") != std::string::npos, text.c_str());
        QVERIFY2(text.find("[+100.0 %, unbounded]") != std::string::npos, text.c_str());
        for (const char* format : {"md", "html"}) {
            const std::string out = ComparisonReport::render(format, in);
            QVERIFY2(out.find("[+100.0 %, unbounded]") != std::string::npos, format);
        }
        const std::string csv = ComparisonReport::csv(in);
        QVERIFY2(csv.find("max_rate_at_slo,req/s,false,2,8,6,3,4,ratio,2,inf,12,12") !=
                     std::string::npos,
                 csv.c_str());
    }

    // A side whose SLOs fail at its lowest point has no capacity: no row, and the gate is
    // inconclusive with the reason, in a plan (which drops gates on unmeasured KPIs) too.
    void aSideWithoutCapacityIsNotJudged() {
        QTemporaryDir dir;
        Store store(dir.filePath("c.db").toStdString(), Store::Mode::ReadWrite);
        const auto session = store.createSession(SessionInfo{});
        sweep(store, session, "never", {{1, 5}, {2, 5}});
        sweep(store, session, "fast", {{1, 0.1}, {2, 0.1}});
        const auto a = ComparisonBuilder::arm(store, "plan/load", "never", "never", session);
        const auto b = ComparisonBuilder::arm(store, "plan/load", "fast", "fast", session);
        ComparisonBuilder::Options o;
        o.gates = {gate("max_rate_at_slo >= +29%"), gate("max_concurrency_at_slo >= +29%")};
        o.dropUnmeasuredGates = true;
        const auto in = ComparisonBuilder::build(store, a, b, o);
        QVERIFY(in.kpis.empty());
        QCOMPARE(in.gates.size(), std::size_t(2));
        QCOMPARE(in.gates[0].second.verdict, Gate::Verdict::Inconclusive);
        QVERIFY2(in.gates[0].second.reason.find("not judged: A has no capacity: the SLOs fail at "
                                                "its lowest point, 1 req/s") == 0,
                 in.gates[0].second.reason.c_str());
        QCOMPARE(in.gates[1].second.verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(in.curves.size(), std::size_t(2));
        const std::string text = ComparisonReport::text(in);
        QVERIFY2(text.find("max_rate_at_slo not compared: A has no capacity") != std::string::npos,
                 text.c_str());
    }

    // A sweep is compared with a sweep of the same kind, under the same SLOs.
    void aSweepAgainstAnotherKindIsRefused() {
        QTemporaryDir dir;
        Store store(dir.filePath("c.db").toStdString(), Store::Mode::ReadWrite);
        const auto session = store.createSession(SessionInfo{});
        sweep(store, session, "swept", {{1, 0.1}, {2, 0.1}});
        const auto plain = store.createRun(session, "load", R"({"concurrency": 8})", 1000,
                                           "plan/load", "plain", 1);
        store.finishRun(plain, 2000, "completed", "{}");
        const auto a = ComparisonBuilder::arm(store, "plan/load", "swept", "swept", session);
        const auto b = ComparisonBuilder::arm(store, "plan/load", "plain", "plain", session);
        QVERIFY_THROWS_EXCEPTION(ComparisonBuilder::UsageError,
                                 ComparisonBuilder::build(store, a, b, {}));
    }
};

QTEST_GUILESS_MAIN(TestSweepCapacity)
#include "tst_sweepcapacity.moc"
