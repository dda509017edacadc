#include "core/store/Store.h"
#include "simulator/EngineSimulator.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope sweep` end to end: its usage errors, and the shape of its JSON report.
class TestSweepCommand : public QObject {
    Q_OBJECT
  private:
    struct Result {
        int code = -1;
        QByteArray out, err;
    };
    static Result run(const QStringList& args) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, args);
        p.waitForFinished(120000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }
    static QStringList base(const QString& db, const QString& url) {
        return {"--db", db, "sweep", "--url", url, "--model", "tierscope-sim", "--no-record"};
    }

  private slots:
    // Refused before anything is sent or stored: the workspace is not even created.
    void usageErrors() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const QString url = "http://127.0.0.1:9"; // nothing is sent
        const QList<QPair<QStringList, QByteArray>> cases = {
            {{"--rates", "1,2", "--concurrency", "1,4", "--requests", "4"}, "excludes"},
            {{"--requests", "4"}, "give --rates"},
            {{"--rates", "1,2"}, "give --requests"},
            {{"--rates", "1,1", "--requests", "4"}, "twice"},
            {{"--rates", "1,2", "--requests", "4", "--slo", "ttft_p99<2s"}, "--slo: an SLO reads"},
            {{"--rates", "1,2", "--requests", "4", "--slo", "ttft_p99<=soon"}, "is not a duration"},
            {{"--rates", "1,2", "--requests", "4", "--slo", "latency<=2s"}, "is not a KPI"},
            {{"--rates", "1,2", "--requests", "4", "--slo", "ttft_p99<=2s", "--repetitions", "1"},
             "--repetitions 2 or more"},
            {{"--rates", "1,-2", "--requests", "4"}, "--rates"},
        };
        for (const auto& [args, message] : cases) {
            const auto r = run(base(db, url) + args);
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(message), qPrintable(args.join(' ') + ": " + r.err));
        }
        QVERIFY(!QFile::exists(db));
        const auto help = run({"sweep", "--help"});
        QCOMPARE(help.code, 0);
        for (const char* option : {"--rates", "--concurrency", "--slo", "--bisect-steps"})
            QVERIFY2(help.out.contains(option), option);
    }

    // The JSON report: every point with its runs and KPIs with intervals, the SLO verdicts,
    // and max_concurrency_at_slo. A generous SLO holds at every point, so the answer is not
    // reached within the grid: the highest point holds and there is no failure.
    void jsonReportShape() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const auto r =
            run(base(db, url) + QStringList{"--concurrency", "1,2", "--repetitions", "2",
                                            "--requests", "3", "--input-len", "8", "--output-len",
                                            "4", "--slo", "ttft_p99<=30s", "--experiment", "shape",
                                            "--format", "json", "--out", dir.filePath("r.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["experiment"].get<std::string>(), std::string("shape"));
        QCOMPARE(json["mode"].get<std::string>(), std::string("concurrency"));
        QCOMPARE(json["repetitions"].get<int>(), 2);
        QCOMPARE(json["slo"], nlohmann::json({"ttft_p99<=30s"}));
        QCOMPARE(json["points"].size(), std::size_t(2));
        std::vector<bool> holds; // c1, c2
        for (const auto& p : json["points"]) {
            QVERIFY(p["label"] == "c1" || p["label"] == "c2");
            QCOMPARE(p["probe"].get<std::string>(), std::string("grid"));
            QCOMPARE(p["runs"].size(), std::size_t(2));
            QCOMPARE(p["measured_runs"].get<int>(), 2);
            for (const char* kpi : {"request_throughput", "output_throughput", "ttft_p50",
                                    "ttft_p99", "tpot_p50", "tpot_p99", "itl_p50", "itl_p99"}) {
                const auto& k = p["kpis"][kpi];
                QVERIFY2(k["estimate"].is_number() && k["lo"].is_number() && k["hi"].is_number(),
                         kpi);
                QVERIFY2(k["lo"].get<double>() <= k["estimate"].get<double>() &&
                             k["estimate"].get<double>() <= k["hi"].get<double>(),
                         kpi);
                QCOMPARE(k["runs"].get<int>(), 2);
                // Geometric where every run's value is above zero (an interval on the logs,
                // so its lower end stays above zero), else the plain mean: a run on a busy
                // machine may measure a zero, so either is right, never anything else.
                const std::string mean = k["mean"].get<std::string>();
                QVERIFY2(mean == "geometric mean" || mean == "mean", kpi);
                if (mean == "geometric mean")
                    QVERIFY2(k["lo"].get<double>() > 0, kpi);
            }
            QCOMPARE(p["kpis"]["ttft_p99"]["unit"].get<std::string>(), std::string("s"));
            QVERIFY(!p["kpis"].contains("goodput")); // no --goodput: not measured, not zero
            QCOMPARE(p["slo"][0]["slo"].get<std::string>(), std::string("ttft_p99<=30s"));
            QCOMPARE(p["slo"][0]["judged_end"].get<std::string>(), std::string("hi"));
            QCOMPARE(p["slo"][0]["judged"], p["kpis"]["ttft_p99"]["hi"]);
            // Two runs' interval (t with one degree of freedom, on the logs) is wide: a busy
            // machine's slow run can put its upper end past any bound, and then the point is
            // rightly not shown to hold. So the verdict is checked against its own judged end.
            QCOMPARE(p["holds"].get<bool>(), p["slo"][0]["judged"].get<double>() <= 30.0);
            holds.push_back(p["holds"].get<bool>());
        }
        const auto& found = json["max_concurrency_at_slo"];
        QCOMPARE(found["unit"].get<std::string>(), std::string("requests"));
        if (holds[0] && holds[1]) { // the usual case: not reached, the highest point holds
            QCOMPARE(found["reached"].get<bool>(), false);
            QCOMPARE(found["holds_at"].get<double>(), 2.0);
            QVERIFY(found["fails_at"].is_null());
        } else { // the first point that failed bounds the answer from above
            QCOMPARE(found["fails_at"].get<double>(), holds[0] ? 2.0 : 1.0);
            QCOMPARE(found["holds_at"].is_null(), !holds[0]);
        }
        // The runs, interleaved, as arms of the experiment.
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(json["session_id"].get<std::int64_t>());
        QCOMPARE(runs.size(), std::size_t(4));
        QCOMPARE(runs[1].arm, std::string("c2"));
        QCOMPARE(runs[2].repetition, 2);
        // `compare` reads a point as any experiment's arm.
        const auto compared =
            run({"--db", db, "compare", "arm:shape/c1", "arm:shape/c1", "--format", "json"});
        QVERIFY2(compared.code == 0, compared.err.constData());
        // The text report says why there is no capacity.
        const auto text =
            run(base(db, url) + QStringList{"--concurrency", "1", "--repetitions", "2",
                                            "--requests", "2", "--slo", "ttft_p99<=30s"});
        QVERIFY2(text.code == 0, text.err.constData());
        if (text.out.contains("SLO ttft_p99<=30s: holds (upper end"))
            QVERIFY2(text.out.contains("max concurrency at SLO: not reached within the grid: the "
                                       "SLOs hold at the highest point, 1"),
                     text.out.constData());
        else
            QVERIFY2(text.out.contains("SLO ttft_p99<=30s: does not hold (upper end"),
                     text.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestSweepCommand)
#include "tst_sweepcommand.moc"
