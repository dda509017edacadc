#include "TestSupport.h"
#include "core/compare/Comparison.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/Gate.h"
#include "core/compare/GatePresets.h"
#include "core/compare/RunKpis.h"
#include "core/report/ComparisonReport.h"
#include "core/report/ReportFile.h"
#include "core/stats/LoadSummary.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"

#include <QProcess>
#include <QTemporaryDir>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

Gate gate(const std::string& text) {
    std::string error;
    auto g = Gate::parse(text, error);
    if (!g)
        qFatal("%s", error.c_str());
    return *g;
}

std::vector<RequestRecord> requests(double ttftBase, int n) {
    std::vector<RequestRecord> out;
    for (int i = 0; i < n; ++i) {
        RequestRecord r;
        r.httpStatus = 200;
        r.ttftS = ttftBase + 0.001 * (i % 10);
        r.e2eS = *r.ttftS + 0.5;
        r.outputTokens = 51;
        r.itlS = {0.01, 0.01};
        out.push_back(r);
    }
    return out;
}

std::string readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll().toStdString();
}

StoredRequest stored(double ttft, bool ok = true) {
    StoredRequest r;
    r.ttftS = ttft;
    r.e2eS = ttft + 1;
    r.ok = ok;
    return r;
}

RunInfo run(std::int64_t id, const std::string& status, const std::string& summary = "{}") {
    RunInfo r;
    r.id = id;
    r.workload = "load";
    r.status = status;
    r.summaryJson = summary;
    return r;
}

// A KPI with the given run values on each side, as Comparison makes it.
KpiComparison kpiOf(const std::string& name, const std::vector<double>& a,
                    const std::vector<double>& b) {
    ComparisonSide sa, sb;
    for (const auto& [side, values] : {std::pair{&sa, &a}, std::pair{&sb, &b}})
        for (const double v : *values) {
            side->runs.push_back(
                run(static_cast<std::int64_t>(side->runs.size()) + 1, "completed",
                    nlohmann::json{{"output_throughput", v}, {"seconds", v}}.dump()));
            if (name == "model_load_time")
                side->runs.back().workload = "storage/model-load";
            side->requests.push_back({stored(v)});
        }
    for (auto& k : Comparison::compare(sa, sb))
        if (k.name == name)
            return k;
    qFatal("no KPI %s", name.c_str());
}

} // namespace

class TestComparison : public QObject {
    Q_OBJECT
  private slots:
    void knownAnswerQuantiles() {
        QCOMPARE(LoadSummary::percentile({4, 1, 3, 2}, 50), 2.5);
        // numpy.percentile(range(1, 11), 90)
        QCOMPARE(LoadSummary::percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90), 9.1);
    }

    void gatesParse() {
        std::string error;
        const auto g = Gate::parse(" ttft_p50 <= -25% ", error);
        QVERIFY(g);
        QCOMPARE(g->kpi, std::string("ttft_p50"));
        QVERIFY(g->atMost);
        QCOMPARE(g->threshold, -0.25);
        const auto r = Gate::parse("model_load_time <= 0.5x", error);
        QVERIFY(r && r->kind == Gate::Kind::Ratio && r->threshold == 0.5);
        const auto t = Gate::parse("output_throughput >= +29%", error);
        QVERIFY(t && !t->atMost && std::abs(t->threshold - 0.29) < 1e-12);
        for (const char* bad : {"ttft_p50 < -25%", "ttft_p50 <= -25", "<= 3x", "ttft_p50 <= x%"})
            QVERIFY2(!Gate::parse(bad, error), bad);
        QCOMPARE(GatePresets::builtin().at("G3"),
                 (std::vector<std::string>{"ttft_p50 <= -25%", "output_throughput >= +29%"}));
        // A misspelled KPI is the user's mistake, not an inconclusive gate.
        QVERIFY_THROWS_EXCEPTION(ComparisonBuilder::UsageError,
                                 ComparisonBuilder::gates({"ttft_p5O <= -25%"}, {}));
        QCOMPARE(ComparisonBuilder::gates({"failure_rate <= 1%"}, {"G3"}).size(), std::size_t(3));
    }

    // Gates judge the ratio of geometric means over runs, with A's spread counted.
    void gateVerdictsOnRunValues() {
        const Gate reduction = gate("ttft_p50 <= -25%");
        const auto clear = kpiOf("ttft_p50", {0.100, 0.101, 0.099}, {0.060, 0.061, 0.059});
        QCOMPARE(reduction.judge(clear).verdict, Gate::Verdict::Pass);
        QVERIFY2(clear.scale == KpiComparison::Scale::Ratio && clear.interval &&
                     clear.interval->hi < 0.75,
                 reduction.judge(clear).reason.c_str());
        const auto noisy = kpiOf("ttft_p50", {0.100, 0.060, 0.140}, {0.060, 0.090, 0.070});
        QCOMPARE(reduction.judge(noisy).verdict, Gate::Verdict::Inconclusive);
        const auto worse = kpiOf("ttft_p50", {0.100, 0.101, 0.099}, {0.120, 0.121, 0.119});
        QCOMPARE(reduction.judge(worse).verdict, Gate::Verdict::Fail);
        const Gate gain = gate("output_throughput >= +29%");
        QCOMPARE(gain.judge(kpiOf("output_throughput", {100, 101, 99}, {140, 141, 139})).verdict,
                 Gate::Verdict::Pass);
        QCOMPARE(gain.judge(kpiOf("output_throughput", {100, 101, 99}, {105, 106, 104})).verdict,
                 Gate::Verdict::Fail);
        const Gate half = gate("model_load_time <= 0.5x");
        QCOMPARE(half.judge(kpiOf("model_load_time", {600, 620, 640}, {100, 110, 120})).verdict,
                 Gate::Verdict::Pass);
        QCOMPARE(half.judge(kpiOf("model_load_time", {600, 620, 640}, {400, 410, 420})).verdict,
                 Gate::Verdict::Fail);
    }

    void oneRunASideHasNoIntervalAndInconclusiveGates() {
        const auto k = kpiOf("ttft_p50", {0.2}, {0.1});
        QVERIFY(!k.interval);
        QCOMPARE(k.verdict(), KpiComparison::Verdict::NoInterval);
        const auto r = gate("ttft_p50 <= -25%").judge(k);
        QCOMPARE(r.verdict, Gate::Verdict::Inconclusive);
        QVERIFY2(r.reason.find("repeat the runs") != std::string::npos, r.reason.c_str());
        // Two runs on one side and one on the other: still no interval.
        QVERIFY(!kpiOf("ttft_p50", {0.2, 0.21}, {0.1}).interval);
        QCOMPARE(gate("ttft_p50 <= -25%").judge(kpiOf("ttft_p50", {0.2, 0.21}, {0.1})).verdict,
                 Gate::Verdict::Inconclusive);
    }

    // "better" only where the interval excludes zero.
    void verdictNeedsSignificance() {
        QCOMPARE(kpiOf("ttft_p50", {0.100, 0.101, 0.099}, {0.060, 0.061, 0.059}).verdict(),
                 KpiComparison::Verdict::BetterB);
        QCOMPARE(kpiOf("ttft_p50", {0.100, 0.060, 0.140}, {0.098, 0.062, 0.137}).verdict(),
                 KpiComparison::Verdict::NoSignificantDifference);
        QCOMPARE(kpiOf("output_throughput", {100, 101, 99}, {90, 91, 89}).verdict(),
                 KpiComparison::Verdict::BetterA);
        // Rounding noise is no difference: both sides at 100 % but for 1e-14.
        KpiComparison same;
        same.a = 100.0;
        same.b = 100.0 + 1.42e-14;
        same.interval = Interval{1.42e-14, 1.42e-14};
        QCOMPARE(same.verdict(), KpiComparison::Verdict::NoSignificantDifference);
    }

    // The storage-wait share of TTFT is a ratio of two times, positive on both sides: it is
    // judged as a ratio with its interval ("halve the storage wait"), unlike the time shares
    // of the bottleneck lane, which move in points. Three runs a side: 60 % -> 30 % of TTFT.
    void storageWaitShareIsJudgedAsARatio() {
        auto side = [](const std::vector<double>& shares) {
            ComparisonSide s;
            for (std::size_t i = 0; i < shares.size(); ++i) {
                s.runs.push_back(run(static_cast<std::int64_t>(i + 1), "completed"));
                s.requests.push_back({stored(1.0)});
                RunTimeline t;
                t.ttft.ttft = TtftBreakdown::Observed{10.0, 10};
                t.ttft.retrieve = TtftBreakdown::Observed{10.0 * shares[i], 10};
                s.timelines.push_back(t);
            }
            return s;
        };
        const auto kpis = Comparison::compare(side({0.58, 0.60, 0.62}), side({0.29, 0.30, 0.31}));
        const auto k = std::find_if(kpis.begin(), kpis.end(), [](const KpiComparison& c) {
            return c.name == "storage_wait_share";
        });
        QVERIFY(k != kpis.end());
        QVERIFY(k->scale == KpiComparison::Scale::Ratio);
        QVERIFY(std::abs(k->ratio() - 0.5) < 0.01);
        QCOMPARE(gate("storage_wait_share <= -25%").judge(*k).verdict, Gate::Verdict::Pass);
        QCOMPARE(gate("storage_wait_share <= -60%").judge(*k).verdict, Gate::Verdict::Fail);
        // A bottleneck time share and a token share still move in points.
        QVERIFY(RunKpis::find("storage_bound_share")->inPoints);
        QVERIFY(RunKpis::find("kv_transfer_token_share")->inPoints);
        QVERIFY(!RunKpis::find("storage_wait_share")->inPoints);
        // An old plan's gate on the renamed KPI says what it is now called.
        QCOMPARE(*RunKpis::renamedTo("ttft_storage_share"), std::string("storage_wait_share"));
    }

    // Warm-up, failed and cancelled runs never enter a KPI, and the report names them.
    void onlyMeasurementRunsCount() {
        ComparisonSide a, b;
        a.runs = {run(1, "warmup"), run(2, "completed"), run(3, "failed"), run(4, "cancelled"),
                  run(5, "completed")};
        a.requests = {{stored(5.0)}, {stored(0.10)}, {stored(9.0)}, {stored(7.0)}, {stored(0.12)}};
        b.runs = {run(6, "completed"), run(7, "imported")};
        b.requests = {{stored(0.05), stored(0.05, false)}, {stored(0.07)}};
        const auto kpis = Comparison::compare(a, b);
        const auto p50 = std::find_if(kpis.begin(), kpis.end(),
                                      [](const KpiComparison& k) { return k.name == "ttft_p50"; });
        QVERIFY(p50 != kpis.end());
        QCOMPARE(p50->runsA, (std::vector<double>{0.10, 0.12}));
        QCOMPARE(p50->runsB, (std::vector<double>{0.05, 0.07}));
        QCOMPARE(p50->a, std::sqrt(0.10 * 0.12)); // a latency compares as a ratio: geometric
        QCOMPARE(p50->countA, std::size_t(2));
        const auto failure = std::find_if(kpis.begin(), kpis.end(), [](const KpiComparison& k) {
            return k.name == "failure_rate";
        });
        QVERIFY(failure != kpis.end());
        QCOMPARE(failure->runsB, (std::vector<double>{50.0, 0.0})); // failed / issued, per run
        QCOMPARE(
            Comparison::excluded(a),
            (std::vector<std::string>{"run 1 (warmup)", "run 3 (failed)", "run 4 (cancelled)"}));
    }

    // ITL pools every gap of the run, as `tierscope load` and vLLM do.
    void itlPoolsGaps() {
        StoredRequest shortOne = stored(0.1), longOne = stored(0.1);
        shortOne.itlMeanS = 0.050;
        shortOne.itlCount = 16;
        longOne.itlMeanS = 0.010;
        longOne.itlCount = 256;
        const auto v = RunKpis::of(run(1, "completed"), {shortOne, longOne}, nullptr);
        QCOMPARE(v.at("itl_mean"), (0.050 * 16 + 0.010 * 256) / 272);
    }

    // TPOT percentiles over the run's requests' TPOTs (vLLM's definition); ITL percentiles are
    // the run's client figures (its pooled gaps are not stored per request), absent when no
    // request completed, where vLLM still writes 0.
    void tpotAndItlPercentiles() {
        std::vector<StoredRequest> requests;
        for (const double tpot : {0.01, 0.02, 0.03}) {
            StoredRequest r = stored(0.1);
            r.outputTokens = 11;
            r.e2eS = 0.1 + 10 * tpot;
            requests.push_back(r);
        }
        const auto v = RunKpis::of(
            run(1, "completed", R"({"completed": 3, "median_itl_ms": 12.0, "p99_itl_ms": 40.0})"),
            requests, nullptr);
        QVERIFY(std::abs(v.at("tpot_p50") - 0.02) < 1e-12);
        QVERIFY(std::abs(v.at("tpot_p99") - (0.02 + 0.98 * 0.01)) < 1e-12);
        QCOMPARE(v.at("itl_p50"), 0.012);
        QCOMPARE(v.at("itl_p99"), 0.040);
        const auto none = RunKpis::of(
            run(2, "completed", R"({"completed": 0, "median_itl_ms": 0, "p99_itl_ms": 0})"), {},
            nullptr);
        QVERIFY(!none.count("itl_p50") && !none.count("itl_p99"));
        QVERIFY(RunKpis::find("tpot_p99") && RunKpis::find("itl_p99"));
    }

    // Under an open-loop rate the gated TTFT counts from the scheduled send; the actual-send
    // figures stand beside it.
    void openLoopTtftFromTheSchedule() {
        RunInfo r = run(1, "completed");
        r.paramsJson = R"({"rate": 4, "concurrency": 0})";
        StoredRequest late = stored(0.100);
        late.scheduledNs = 1'000'000'000;
        late.sendNs = 1'300'000'000; // the client sent it 300 ms late
        const auto v = RunKpis::of(r, {late}, nullptr);
        QCOMPARE(v.at("ttft_p50"), 0.400);
        QCOMPARE(v.at("ttft_p50_actual_send"), 0.100);
        QCOMPARE(RunKpis::variant(r), std::string("load@rate4"));
        r.paramsJson = R"({"rate": 0, "concurrency": 8})";
        const auto closed = RunKpis::of(r, {late}, nullptr);
        QCOMPARE(closed.at("ttft_p50"), 0.100);
        QVERIFY(!closed.count("ttft_p50_actual_send"));
    }

    // failure_rate <= 1% bounds B's own level, judged on its interval over B's runs.
    void failureRateGateBoundsTheLevel() {
        const Gate g = gate("failure_rate <= 1%");
        auto side = [](std::vector<std::vector<bool>> runs) {
            ComparisonSide s;
            for (const auto& oks : runs) {
                s.runs.push_back(run(static_cast<std::int64_t>(s.runs.size()) + 1, "completed"));
                s.requests.emplace_back();
                for (const bool ok : oks)
                    s.requests.back().push_back(stored(0.1, ok));
            }
            return s;
        };
        std::vector<bool> clean(200, true), two(200, true);
        two[0] = two[1] = false; // 1 %
        std::vector<bool> ten(100, true);
        for (int i = 0; i < 10; ++i)
            ten[static_cast<std::size_t>(i)] = false;
        auto judge = [&](const ComparisonSide& b) {
            for (const auto& k : Comparison::compare(side({clean, clean}), b))
                if (k.name == "failure_rate")
                    return g.judge(k);
            qFatal("no failure_rate");
        };
        QCOMPARE(judge(side({clean, clean, clean})).verdict, Gate::Verdict::Pass);
        // 0 of 200 failed bounds the rate at 1.9 % (Wilson), not 0 %: too few requests to
        // show <= 1 %, however steady the runs.
        const std::vector<bool> hundred(100, true);
        const auto few = judge(side({hundred, hundred}));
        QCOMPARE(few.verdict, Gate::Verdict::Inconclusive);
        QVERIFY2(few.reason.find("1.88%]") != std::string::npos, few.reason.c_str());
        QCOMPARE(judge(side({ten, ten, ten})).verdict, Gate::Verdict::Fail);
        QCOMPARE(judge(side({clean, two, ten})).verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(judge(side({clean})).verdict, Gate::Verdict::Inconclusive);
    }

    void comparesStoredRunsAndEscapesReports() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("c.db").toStdString();
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo s;
        s.label = "<script>alert(1)</script>";
        s.startNs = 1;
        const auto sa = store.createSession(s);
        const auto sb = store.createSession(s);
        for (double seconds : {600.0, 620.0, 640.0})
            store.finishRun(store.createRun(sa, "storage/model-load", "{}", 1), 2, "completed",
                            nlohmann::json{{"seconds", seconds}}.dump());
        for (double seconds : {100.0, 110.0, 120.0})
            store.finishRun(store.createRun(sb, "storage/model-load", "{}", 1), 2, "completed",
                            nlohmann::json{{"seconds", seconds}}.dump());
        store.finishRun(store.createRun(sb, "storage/model-load", "{}", 1), 2, "failed",
                        R"({"seconds": 1})"); // not a measurement

        const auto a = ComparisonBuilder::resolve(store, "session:" + std::to_string(sa));
        const auto b = ComparisonBuilder::resolve(store, "session:" + std::to_string(sb));
        ComparisonBuilder::Options o;
        o.gates = {gate("model_load_time <= 0.5x")};
        auto in = ComparisonBuilder::build(store, a, b, o);
        in.labelA = s.label;
        const auto& load = in.kpis.at(0);
        QCOMPARE(load.name, std::string("model_load_time"));
        // Geometric means: B/A, the change and its interval all come from the logs.
        QVERIFY(std::abs(load.a - std::cbrt(600.0 * 620 * 640)) < 1e-9);
        QVERIFY(std::abs(load.b - std::cbrt(100.0 * 110 * 120)) < 1e-9);
        QCOMPARE(load.countB, std::size_t(3));
        QVERIFY(load.interval && load.interval->hi < 1);
        QCOMPARE(in.gates.at(0).second.verdict, Gate::Verdict::Pass);
        QCOMPARE(in.excluded, std::vector<std::string>{"B: run 7 (failed)"});

        in.toolVersion = "0.1.0";
        in.generatedUtc = "now";
        in.plan = "tokens = 1024\n[arm.env]\nHF_TOKEN = \"hf_abc123\"\nX = 1\n"
                  "env = { API_KEY = 'k-9', \"DB_PASSWORD\" = \"p\\\"w\", N = 2 }\n";
        for (const auto& report : {ComparisonReport::html(in), ComparisonReport::json(in)}) {
            for (const char* secret : {"hf_abc123", "k-9", "p\\\"w", "p\\\\\\\"w"})
                QVERIFY2(report.find(secret) == std::string::npos, secret);
            QVERIFY(report.find("tokens = 1024") != std::string::npos); // not a secret
            QVERIFY(report.find("HF_TOKEN = ") != std::string::npos);
        }
        const std::string html = ComparisonReport::html(in);
        QVERIFY(html.find("<script>") == std::string::npos);
        QVERIFY(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
        QVERIFY(html.find("class=\"pass\">pass") != std::string::npos);
        QVERIFY(html.find("Welch") != std::string::npos);
        const auto json = nlohmann::json::parse(ComparisonReport::json(in));
        QCOMPARE(json["a"].get<std::string>(), s.label);
        QCOMPARE(json["gates"][0]["verdict"].get<std::string>(), std::string("pass"));
        QCOMPARE(json["kpis"][0]["runs_b"], (nlohmann::json{100.0, 110.0, 120.0}));
        QCOMPARE(json["kpis"][0]["verdict"].get<std::string>(), std::string("B"));
        QVERIFY(ComparisonReport::markdown(in).find("\\<script\\>") != std::string::npos);
        // A label that a spreadsheet would run as a formula is neutralized in the CSV report.
        in.labelB = "=HYPERLINK(\"http://x\")";
        QVERIFY(ComparisonReport::csv(in).find(",\"'=HYPERLINK(") != std::string::npos);
        const std::string text = ComparisonReport::text(in);
        QVERIFY(text.find("joint claim") != std::string::npos);
        QVERIFY(text.find("B: run 7 (failed)") != std::string::npos);
    }

    void runListsAndVariants() {
        QTemporaryDir dir;
        Store store(dir.filePath("v.db").toStdString(), Store::Mode::ReadWrite);
        SessionInfo s;
        s.startNs = 1;
        const auto session = store.createSession(s);
        for (int i = 0; i < 6; ++i) {
            const auto id = store.createRun(
                session, "load", i < 4 ? R"({"concurrency": 8})" : R"({"concurrency": 16})", 1);
            store.finishRun(id, 2, "completed", "{}");
        }
        auto ids = [&](const std::string& spec) {
            std::vector<std::int64_t> out;
            for (const auto& r : ComparisonBuilder::resolve(store, spec).runs)
                out.push_back(r.id);
            return out;
        };
        QCOMPARE(ids("run:1,2,3"), (std::vector<std::int64_t>{1, 2, 3}));
        QCOMPARE(ids("run:4-6"), (std::vector<std::int64_t>{4, 5, 6}));
        QCOMPARE(ids("run:1,3-4,3"), (std::vector<std::int64_t>{1, 3, 4}));
        QCOMPARE(ids("2"), (std::vector<std::int64_t>{2}));
        for (const char* bad : {"run:3-1", "run:1,,2", "run:1-", "run:-2", "run:a", "run:1-2-3"})
            QVERIFY_THROWS_EXCEPTION(ComparisonBuilder::UsageError,
                                     ComparisonBuilder::resolve(store, bad));
        QVERIFY_THROWS_EXCEPTION(StoreError, ComparisonBuilder::resolve(store, "run:1,99"));
        // A side of c8 and c16 averages unlike things: refused, naming both.
        const auto mixed = ComparisonBuilder::resolve(store, "run:3-6");
        try {
            ComparisonBuilder::build(store, ComparisonBuilder::resolve(store, "run:1-2"), mixed,
                                     {});
            QFAIL("a side of two concurrencies was compared");
        } catch (const ComparisonBuilder::UsageError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("load@c8") != std::string::npos &&
                         what.find("load@c16") != std::string::npos,
                     e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            ComparisonBuilder::UsageError,
            ComparisonBuilder::build(store, ComparisonBuilder::resolve(store, "run:1-2"),
                                     ComparisonBuilder::resolve(store, "run:5-6"), {}));
    }

    // A run whose validity check failed (arm B answered by arm A's engine) makes the whole
    // comparison INVALID: no gate is judged, and compare exits 13.
    void aFailedValidityCheckMakesTheComparisonInvalid() {
        QTemporaryDir dir;
        const QString db = dir.filePath("v.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            for (int i = 0; i < 4; ++i) {
                const auto id = store.createRun(session, "load", "{}", 1, "e", i < 2 ? "A" : "B");
                store.addRequests(id, requests(i < 2 ? 0.2 : 0.1, 20));
                nlohmann::json summary = {{"output_throughput", 100 + i}};
                summary["validity"] = nlohmann::json::array(
                    {{{"check", "engine_identity"},
                      {"status", i == 3 ? "fail" : "pass"},
                      {"detail", "arm \"B\" was answered by the engine that answered arm \"A\""}}});
                store.finishRun(id, 2, "completed", summary.dump());
            }
        }
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "compare", "arm:e/A", "arm:e/B", "--gate", "ttft_p50 <= -25%"});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray out = p.readAllStandardOutput();
        QCOMPARE(p.exitCode(), 13);
        QVERIFY2(out.contains("INVALID") && out.contains("run 4: engine_identity fail"),
                 out.constData());
        QVERIFY(out.contains("not judged: the comparison is INVALID"));
    }

    // Passed checks (with their numbers), each reset step and a populate phase are listed in
    // the report, in every format; runs that are no measurement are not.
    void passedChecksResetsAndThePopulatePhaseAreReported() {
        const nlohmann::json summary = {
            {"validity",
             {{{"check", "storage_evidence"}, {"status", "pass"}, {"detail", "vda read 130 MB"}},
              {{"check", "errors"}, {"status", "warn"}, {"detail", "1 of 8 failed"}}}},
            {"reset",
             {{{"step", "reset_prefix_cache"}, {"ok", true}, {"detail", "HTTP 200"}},
              {{"step", "drop_caches"}, {"ok", false}, {"detail", "needs root"}}}},
            {"populate", {{"completed", 16}, {"median_ttft_ms", 812.5}}}};
        ComparisonSide side;
        side.runs = {run(7, "completed", summary.dump()), run(8, "populate", summary.dump())};
        const auto lines = Comparison::checks(side);
        QCOMPARE(lines, (std::vector<std::string>{
                            "run 7: storage_evidence pass: vda read 130 MB",
                            "run 7: reset reset_prefix_cache ok: HTTP 200",
                            "run 7: reset drop_caches failed: needs root",
                            "run 7: populate phase: 16 documents, median TTFT 812.50 ms"}));
        // The same as rows, with the warning and a check of no known status kept as they came.
        nlohmann::json odd = summary;
        odd["validity"].push_back({{"check", "page_cache"}, {"detail", "no status"}});
        side.runs = {run(7, "completed", odd.dump()), run(8, "populate", odd.dump())};
        const auto rows = Comparison::runChecks(side);
        QCOMPARE(rows.size(), std::size_t(6));
        QVERIFY(std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.run == 7; }));
        QCOMPARE(rows[0].name + " " + rows[0].status + " " + rows[0].detail,
                 std::string("storage_evidence pass vda read 130 MB"));
        QCOMPARE(rows[1].status, std::string("warn"));
        QCOMPARE(rows[2].name, std::string("page_cache"));
        QCOMPARE(rows[2].status, std::string());
        QCOMPARE(rows[4].name + " " + rows[4].status, std::string("reset drop_caches failed"));
        QCOMPARE(rows[5].status + " " + rows[5].detail,
                 std::string("info 16 documents, median TTFT 812.50 ms"));
        QCOMPARE(Comparison::checks(side), lines); // no status: neither passed nor listed
        QCOMPARE(Comparison::validity(side).size(), std::size_t(1));
        ComparisonResult in;
        in.checks = {"A: " + lines[0]};
        for (const char* format : {"text", "md", "html", "json"})
            QVERIFY2(ComparisonReport::render(format, in).find("vda read 130 MB") !=
                         std::string::npos,
                     format);
    }

    // The bytes route table of the HTML report and the JSON's bytes_route: one row per
    // measured run with every layer, absent where not recorded, and the run's confounds.
    void bytesRouteInTheReports() {
        ComparisonResult in;
        BytesRoute r;
        r.engineTierBytes = 4e9;
        r.engineTierSource = "vLLM offload tiers";
        r.device = "nvme1n1";
        r.deviceBytes = 0.5e9;
        r.belowBytes = {{"nvme1c1n1", 0.3e9}, {"nvme1c2n1", 0.2e9}};
        r.nicBytes = 0.1e9;
        in.routes.push_back({'B', 12, r});
        const std::string html = ComparisonReport::html(in);
        for (const char* cell : {"<h2>Bytes route</h2>", "B: run 12", "4.0 GB", "nvme1n1",
                                 "500.0 MB (12 %)", "nvme1c1n1 300.0 MB, nvme1c2n1 200.0 MB",
                                 "<td>absent</td>", "page-cache: the engine read 4.0 GB"})
            QVERIFY2(html.find(cell) != std::string::npos, cell);
        const auto j = nlohmann::json::parse(ComparisonReport::json(in))["bytes_route"][0];
        QCOMPARE(j["side"].get<std::string>(), std::string("B"));
        QCOMPARE(j["device_read_bytes"].get<double>(), 0.5e9);
        QVERIFY(j["rdma_rx_bytes"].is_null());
        QCOMPARE(j["below"]["nvme1c2n1"].get<double>(), 0.2e9);
        QCOMPARE(j["confounds"][0]["id"].get<std::string>(), std::string("page-cache"));
        QVERIFY(ComparisonReport::html(ComparisonResult{}).find("Bytes route") ==
                std::string::npos);
    }

    // A link planted at the temporary name is refused, never written through; a link at the
    // target's name is replaced, its target untouched.
    void reportsAreNeverWrittenThroughALink() {
        QTemporaryDir dir;
        const std::string victim = dir.filePath("victim").toStdString();
        test::writeFileBytes(victim, "keep");
        const std::string target = dir.filePath("r.html").toStdString();
        const std::string temporary =
            dir.filePath(".r.html." + QString::number(::getpid()) + ".part").toStdString();
        QCOMPARE(::symlink(victim.c_str(), temporary.c_str()), 0);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, ReportFile::write(target, "report"));
        QCOMPARE(readAll(QString::fromStdString(victim)), std::string("keep"));
        ::unlink(temporary.c_str());
        QCOMPARE(::symlink(victim.c_str(), target.c_str()), 0);
        ReportFile::write(target, "report");
        QCOMPARE(readAll(QString::fromStdString(victim)), std::string("keep"));
        QCOMPARE(readAll(QString::fromStdString(target)), std::string("report"));
        QVERIFY(!QFileInfo(QString::fromStdString(target)).isSymLink());
    }

    // Every execution of a plan stores its runs under the same experiment name: an arm named
    // by it alone would pool two executions. It is refused, naming the sessions; @N takes one
    // execution, @all pools them on purpose.
    void anArmInSeveralSessionsIsNamedBySession() {
        QTemporaryDir dir;
        Store store(dir.filePath("s.db").toStdString(), Store::Mode::ReadWrite);
        std::vector<std::int64_t> sessions;
        for (int execution = 0; execution < 2; ++execution) {
            SessionInfo s;
            s.startNs = 1 + execution;
            sessions.push_back(store.createSession(s));
            for (int i = 0; i < 2; ++i) {
                const auto id = store.createRun(sessions.back(), "load", "{}", 1, "e/load", "A");
                store.addRequests(id, requests(0.1 * (execution + 1), 5));
                store.finishRun(id, 2, "completed", "{}");
            }
        }
        try {
            ComparisonBuilder::resolve(store, "arm:e/load/A");
            QFAIL("two executions were pooled");
        } catch (const ComparisonBuilder::UsageError& e) {
            QVERIFY2(std::string(e.what()).find("runs in 2 sessions (1, 2)") != std::string::npos &&
                         std::string(e.what()).find("arm:e/load/A@2") != std::string::npos,
                     e.what());
        }
        const auto one = ComparisonBuilder::resolve(store, "arm:e/load/A@1");
        QCOMPARE(one.runs.size(), std::size_t(2));
        for (const auto& r : one.runs)
            QCOMPARE(r.sessionId, sessions[0]);
        QCOMPARE(ComparisonBuilder::resolve(store, "arm:e/load/A@all").runs.size(), std::size_t(4));
        QVERIFY_THROWS_EXCEPTION(StoreError, ComparisonBuilder::resolve(store, "arm:e/load/A@7"));
    }

    void compareCommandExitCodes() {
        QTemporaryDir dir;
        const QString db = dir.filePath("c.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            for (int i = 0; i < 6; ++i) {
                const auto id = store.createRun(session, "load", "{}", 1);
                store.addRequests(id, requests(i < 3 ? 0.200 + 0.002 * i : 0.100 + 0.002 * i, 50));
                store.finishRun(id, 2, "completed", "{}");
            }
        }
        auto run = [&](const QStringList& args) {
            QProcess p;
            p.start(TIERSCOPE_BINARY, QStringList{"--db", db, "compare"} + args);
            p.waitForFinished(60000);
            return std::make_pair(p.exitCode(),
                                  p.readAllStandardOutput() + p.readAllStandardError());
        };
        QCOMPARE(run({"run:1-3", "run:4-6", "--gate", "ttft_p50 <= -25%"}).first, 0);
        QCOMPARE(run({"run:1,2,3", "run:4-6", "--gate", "ttft_p50 <= -60%"}).first, 11);
        const auto preset = run({"run:1-3", "run:4-6", "--gate-preset", "G3"});
        QCOMPARE(preset.first, 12); // throughput was not measured
        QVERIFY(preset.second.contains("output_throughput was not measured on both sides"));
        const auto single = run({"1", "4", "--gate", "ttft_p50 <= -25%"});
        QCOMPARE(single.first, 12); // one run a side: no interval, no verdict
        QVERIFY2(single.second.contains("n/a (1 run: repeat the run to get an interval)"),
                 single.second.constData());
        QCOMPARE(run({"run:1-3", "session:1"}).first, 0);
        QCOMPARE(run({"1", "bogus:2"}).first, 2);
        QCOMPARE(run({"1", "2", "--gate", "ttft <= 5"}).first, 2);
        QCOMPARE(run({"1", "2", "--gate", "ttft_p5O <= -25%"}).first, 2);
        QCOMPARE(run({"1", "9"}).first, 6);
        const QString html = dir.filePath("r.html");
        QCOMPARE(run({"1", "2", "--format", "html", "--out", html}).first, 0);
        QVERIFY(QFile(html).size() > 500);
        // Reports are private like the workspace, even when a file was there before.
        QCOMPARE(QFile(html).permissions() &
                     (QFile::ReadGroup | QFile::ReadOther | QFile::WriteGroup | QFile::WriteOther),
                 QFile::Permissions());
        QCOMPARE(run({"1", "2", "--out", html}).first, 0);
        QCOMPARE(QFile(html).permissions() & (QFile::ReadGroup | QFile::ReadOther),
                 QFile::Permissions());
        QCOMPARE(run({"1", "2", "--out", dir.filePath("missing-dir/r.html")}).first, 5);
    }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
