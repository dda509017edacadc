#include "TestSupport.h"
#include "core/store/Store.h"
#include "simulator/EngineSimulator.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope load --dataset trace` end to end against the simulator on loopback.
class TestLoadTrace : public QObject {
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
    static QString fixture(const char* name) {
        return QStringLiteral(TIERSCOPE_FIXTURES "/") + name;
    }

  private slots:
    // The Mooncake fixture, 100 times faster: six requests sent, five malformed lines named
    // with their numbers, the schedule error and the TTFT from the scheduled send printed and
    // stored, the trace's parameters kept with the run.
    void replaysAMooncakeTrace() {
        EngineSimulator sim(EngineSimulator::Options{});
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const auto r = run(
            {"--db", db, "load", "--url", url, "--model", "tierscope-sim", "--dataset", "trace",
             "--trace", fixture("mooncake/mooncake_trace-fast25-layout.jsonl"), "--trace-format",
             "mooncake", "--time-scale", "0.01", "--no-record", "--out", dir.filePath("r.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("Successful requests:                     6\n"));
        QVERIFY2(r.out.contains("-----Schedule error (actual - scheduled send)-----\n"
                                "Mean error (ms):"),
                 r.out.constData());
        QVERIFY(r.out.contains("P99 error (ms):"));
        QVERIFY(r.out.contains("TTFT from scheduled send"));
        QVERIFY2(r.out.contains(": 6 requests scheduled over 0.1 s from 12 lines read (time scale "
                                "0.01); 5 malformed lines skipped: line 4 (not a JSON object), "
                                "line 6 ("),
                 r.out.constData());
        QVERIFY(r.out.contains("; 1 of 0 output tokens sent with max_tokens 1\n"));
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["completed"].get<int>(), 6);
        QVERIFY(json["p99_schedule_error_ms"].is_number());
        QVERIFY(json["median_ttft_from_scheduled_ms"].is_number());
        QCOMPARE(json["trace"]["scheduled"].get<int>(), 6);
        QCOMPARE(json["trace"]["format"].get<std::string>(), std::string("mooncake"));
        std::vector<int> lines;
        for (const auto& m : json["trace"]["malformed_lines"])
            lines.push_back(m["line"].get<int>());
        QCOMPARE(lines, (std::vector<int>{4, 6, 8, 10, 12}));
        QVERIFY(json["max_concurrency"].is_null()); // open loop
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runId = json["run_id"].get<std::int64_t>();
        QCOMPARE(store.requestCount(runId), std::int64_t(6));
        const auto params = nlohmann::json::parse(store.run(runId)->paramsJson);
        QCOMPARE(params["dataset"].get<std::string>(), std::string("trace"));
        QCOMPARE(params["trace_format"].get<std::string>(), std::string("mooncake"));
        QCOMPARE(params["time_scale"].get<double>(), 0.01);
        QCOMPARE(sim.records().size(), std::size_t(6));
        // The prompts had the trace's lengths: one word a token in the simulator.
        std::vector<int> prompts;
        for (const auto& s : sim.records())
            prompts.push_back(s.promptTokens);
        std::sort(prompts.begin(), prompts.end());
        QCOMPARE(prompts, (std::vector<int>{512, 700, 900, 1100, 1200, 1536}));
    }

    // --max-requests and --start-at, on a CSV layout.
    void burstGptWithStartAndMaximum() {
        EngineSimulator sim(EngineSimulator::Options{});
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const auto r = run({"--db",
                            dir.filePath("w.db"),
                            "load",
                            "--url",
                            url,
                            "--model",
                            "m",
                            "--dataset",
                            "trace",
                            "--trace",
                            fixture("burstgpt/BurstGPT_1-v1.1-layout.csv"),
                            "--trace-format",
                            "burstgpt",
                            "--time-scale",
                            "0.001",
                            "--start-at",
                            "5",
                            "--max-requests",
                            "2",
                            "--no-record",
                            "--out",
                            dir.filePath("r.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("Successful requests:                     2\n"));
        QVERIFY2(r.out.contains("2 requests scheduled over 0.0 s") &&
                     r.out.contains("; 1 before the start"),
                 r.out.constData());
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["trace"]["skipped_before_start"].get<int>(), 1);
        QCOMPARE(json["trace"]["max_requests"].get<int>(), 2);
        QCOMPARE(sim.records().size(), std::size_t(2));
    }

    void usageErrors() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const QString trace = fixture("mooncake/mooncake_trace-fast25-layout.jsonl");
        const QStringList base = {"--db",    db,  "load",       "--url", "http://127.0.0.1:1",
                                  "--model", "m", "--no-record"};
        struct Case {
            QStringList args;
            const char* says;
        };
        const Case cases[] = {
            {{"--dataset", "trace", "--trace-format", "mooncake"}, "needs --trace FILE"},
            {{"--dataset", "trace", "--trace", trace, "--trace-format", "mooncake", "--rate", "5"},
             "--concurrency and --rate do not apply"},
            {{"--dataset", "trace", "--trace", trace, "--trace-format", "mooncake", "--requests",
              "3"},
             "takes --max-requests N"},
            {{"--concurrency", "1", "--requests", "1", "--trace", trace},
             "go with --dataset trace"},
            {{"--dataset", "trace", "--trace", dir.filePath("none.jsonl"), "--trace-format",
              "mooncake"},
             "cannot read trace"},
            // A CSV header is not what the format says: nothing can be sent.
            {{"--dataset", "trace", "--trace", trace, "--trace-format", "azure"},
             "not an Azure trace header"},
            {{"--dataset", "trace", "--trace", trace, "--trace-format", "mooncake", "--start-at",
              "60"},
             "holds no request to send"},
        };
        for (const auto& c : cases) {
            const auto r = run(base + c.args);
            QVERIFY2(r.code == 2, qPrintable(c.args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(c.says), r.err.constData());
        }
        // The format is one of the four.
        QCOMPARE(run(base + QStringList{"--dataset", "trace", "--trace", trace, "--trace-format",
                                        "sharegpt"})
                     .code,
                 2);
    }
};

QTEST_GUILESS_MAIN(TestLoadTrace)
#include "tst_loadtrace.moc"
