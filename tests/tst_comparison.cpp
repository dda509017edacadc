#include "TestSupport.h"
#include "core/Bootstrap.h"
#include "core/Comparison.h"
#include "core/ComparisonReport.h"
#include "core/Gate.h"
#include "core/GatePresets.h"
#include "core/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <random>

using namespace tierscope;

namespace {

KpiComparison kpi(double a, double lo, double hi, double b) {
    KpiComparison k;
    k.name = "ttft_p50";
    k.unit = "s";
    k.a = a;
    k.b = b;
    k.interval = Bootstrap::Interval{lo, hi};
    k.countA = k.countB = 100;
    k.sampleKind = "requests";
    return k;
}

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

} // namespace

class TestComparison : public QObject {
    Q_OBJECT
  private slots:
    void knownAnswerQuantiles() {
        std::vector<double> v = {4, 1, 3, 2};
        QCOMPARE(Bootstrap::percentile(50)(v), 2.5);
        std::vector<double> ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
        QCOMPARE(Bootstrap::percentile(90)(ten), 9.1); // numpy.percentile(range(1, 11), 90)
        QCOMPARE(Bootstrap::percentile(0)(ten), 1.0);
        QCOMPARE(Bootstrap::percentile(100)(ten), 10.0);
        std::vector<double> m = {1, 2, 6};
        QCOMPARE(Bootstrap::mean()(m), 3.0);
    }

    // Across 1,000 seeded trials with a known difference of means, the 95 % interval must
    // contain the truth in 93-97 % of them.
    void bootstrapIntervalCoverage() {
        std::mt19937_64 random(20261130);
        std::normal_distribution<double> noise(0.0, 2.0);
        int covered = 0;
        const int trials = 1000;
        for (int t = 0; t < trials; ++t) {
            std::vector<double> a(60), b(60);
            for (auto& v : a)
                v = 10.0 + noise(random);
            for (auto& v : b)
                v = 11.0 + noise(random);
            const auto ci = Bootstrap::difference(a, b, Bootstrap::mean(), t + 1, 1000);
            QVERIFY(ci);
            covered += ci->lo <= 1.0 && 1.0 <= ci->hi;
        }
        const double share = static_cast<double>(covered) / trials;
        QVERIFY2(share >= 0.93 && share <= 0.97, qPrintable(QString::number(share)));
    }

    void bootstrapIsSeededAndNeedsTwoValues() {
        const std::vector<double> a = {1, 2, 3, 4, 5}, b = {2, 3, 4, 5, 6};
        const auto x = Bootstrap::difference(a, b, Bootstrap::mean(), 7);
        const auto y = Bootstrap::difference(a, b, Bootstrap::mean(), 7);
        QVERIFY(x && y);
        QCOMPARE(x->lo, y->lo);
        QCOMPARE(x->hi, y->hi);
        QVERIFY(!Bootstrap::difference({1}, b, Bootstrap::mean(), 7));
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
    }

    void gateVerdictsIncludingInconclusive() {
        const Gate reduction = gate("ttft_p50 <= -25%");
        // A = 100 ms; the interval of B - A decides.
        QCOMPARE(reduction.judge(kpi(0.1, -0.04, -0.03, 0.065)).verdict, Gate::Verdict::Pass);
        QCOMPARE(reduction.judge(kpi(0.1, -0.03, -0.02, 0.075)).verdict,
                 Gate::Verdict::Inconclusive); // straddles -25 %
        QCOMPARE(reduction.judge(kpi(0.1, -0.02, -0.01, 0.085)).verdict, Gate::Verdict::Fail);
        const Gate gain = gate("output_throughput >= +29%");
        QCOMPARE(gain.judge(kpi(100, 30, 40, 135)).verdict, Gate::Verdict::Pass);
        QCOMPARE(gain.judge(kpi(100, 20, 40, 130)).verdict, Gate::Verdict::Inconclusive);
        QCOMPARE(gain.judge(kpi(100, 0, 10, 105)).verdict, Gate::Verdict::Fail);
        const Gate half = gate("model_load_time <= 0.5x");
        QCOMPARE(half.judge(kpi(600, -500, -400, 150)).verdict, Gate::Verdict::Pass);
        QCOMPARE(half.judge(kpi(600, -200, -100, 450)).verdict, Gate::Verdict::Fail);
        KpiComparison single = kpi(1, 0, 0, 0.5);
        single.interval.reset();
        single.sampleKind = "runs";
        const auto r = half.judge(single);
        QCOMPARE(r.verdict, Gate::Verdict::Inconclusive);
        QVERIFY(r.reason.find("fewer than two runs") != std::string::npos);
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
        const auto ra = store.createRun(sa, "load", "{}", 1);
        const auto rb = store.createRun(sb, "load", "{}", 1);
        store.addRequests(ra, requests(0.200, 100));
        store.addRequests(rb, requests(0.100, 100));
        store.finishRun(ra, 2, "completed", R"({"output_throughput": 1000})");
        store.finishRun(rb, 2, "completed", R"({"output_throughput": 1400})");
        for (double seconds : {600.0, 620.0, 640.0})
            store.finishRun(store.createRun(sa, "storage/model-load", "{}", 1), 2, "completed",
                            nlohmann::json{{"seconds", seconds}}.dump());
        for (double seconds : {100.0, 110.0, 120.0})
            store.finishRun(store.createRun(sb, "storage/model-load", "{}", 1), 2, "completed",
                            nlohmann::json{{"seconds", seconds}}.dump());
        store.finishRun(store.createRun(sb, "storage/model-load", "{}", 1), 2, "failed",
                        R"({"seconds": 1})"); // not a measurement

        ComparisonSide a{"A <b>", store.runsOfSession(sa), {}};
        ComparisonSide b{"B", store.runsOfSession(sb), {}};
        for (auto* side : {&a, &b})
            for (const auto& r : side->runs)
                side->requests.push_back(store.requests(r.id));
        const auto kpis = Comparison::compare(a, b);
        auto find = [&](const char* name) -> const KpiComparison& {
            for (const auto& k : kpis)
                if (k.name == name)
                    return k;
            qFatal("no KPI %s", name);
        };
        QCOMPARE(find("ttft_p50").a, 0.2045);
        QCOMPARE(find("ttft_p50").b, 0.1045);
        QCOMPARE(find("ttft_p50").countA, std::size_t(100));
        QVERIFY(find("ttft_p50").interval);
        QCOMPARE(find("tpot_mean").a, 0.01);
        QCOMPARE(find("output_throughput").b, 1400.0);
        QVERIFY(!find("output_throughput").interval); // one run a side
        const auto& load = find("model_load_time");
        QCOMPARE(load.a, 620.0);
        QCOMPARE(load.b, 110.0);
        QCOMPARE(load.countB, std::size_t(3));
        QVERIFY(load.interval && load.interval->hi < 0);
        QCOMPARE(gate("model_load_time <= 0.5x").judge(load).verdict, Gate::Verdict::Pass);

        ComparisonReport::Input in;
        in.labelA = s.label;
        in.labelB = "B";
        in.kpis = kpis;
        in.toolVersion = "0.1.0";
        in.generatedUtc = "now";
        in.gates.emplace_back(gate("ttft_p50 <= -25%"),
                              gate("ttft_p50 <= -25%").judge(find("ttft_p50")));
        const std::string html = ComparisonReport::html(in);
        QVERIFY(html.find("<script>") == std::string::npos);
        QVERIFY(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
        QVERIFY(html.find("class=\"pass\">pass") != std::string::npos);
        const auto json = nlohmann::json::parse(ComparisonReport::json(in));
        QCOMPARE(json["a"].get<std::string>(), s.label);
        QCOMPARE(json["gates"][0]["verdict"].get<std::string>(), std::string("pass"));
        QVERIFY(ComparisonReport::markdown(in).find("\\<script\\>") != std::string::npos);
        QVERIFY(ComparisonReport::text(in).find("model_load_time") != std::string::npos);
    }

    void compareCommandExitCodes() {
        QTemporaryDir dir;
        const QString db = dir.filePath("c.db");
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            const auto ra = store.createRun(session, "load", "{}", 1);
            const auto rb = store.createRun(session, "load", "{}", 1);
            store.addRequests(ra, requests(0.200, 50));
            store.addRequests(rb, requests(0.100, 50));
            store.finishRun(ra, 2, "completed", "{}");
            store.finishRun(rb, 2, "completed", "{}");
        }
        auto run = [&](const QStringList& args) {
            QProcess p;
            p.start(TIERSCOPE_BINARY, QStringList{"--db", db, "compare"} + args);
            p.waitForFinished(60000);
            return std::make_pair(p.exitCode(),
                                  p.readAllStandardOutput() + p.readAllStandardError());
        };
        QCOMPARE(run({"1", "2", "--gate", "ttft_p50 <= -25%"}).first, 0);
        QCOMPARE(run({"run:1", "run:2", "--gate", "ttft_p50 <= -60%"}).first, 11);
        const auto preset = run({"1", "2", "--gate-preset", "G3"});
        QCOMPARE(preset.first, 12); // throughput was not measured
        QVERIFY(preset.second.contains("output_throughput was not measured on both sides"));
        QCOMPARE(run({"1", "session:1"}).first, 0);
        QCOMPARE(run({"1", "bogus:2"}).first, 2);
        QCOMPARE(run({"1", "2", "--gate", "ttft <= 5"}).first, 2);
        QCOMPARE(run({"1", "9"}).first, 6);
        const QString html = dir.filePath("r.html");
        QCOMPARE(run({"1", "2", "--format", "html", "--out", html}).first, 0);
        QVERIFY(QFile(html).size() > 500);
    }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
