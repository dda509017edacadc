#include "TestSupport.h"
#include "collectors/EngineSimulator.h"
#include "core/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope load` end to end against the simulator on loopback.
class TestLoadCommand : public QObject {
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

  private slots:
    void storesTheRunAndItsRequests() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 500;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const auto r = run({"--db",
                            db,
                            "load",
                            "--url",
                            url,
                            "--model",
                            "tierscope-sim",
                            "--concurrency",
                            "4",
                            "--requests",
                            "40",
                            "--warmup",
                            "4",
                            "--input-len",
                            "32-64",
                            "--output-len",
                            "8",
                            "--goodput",
                            "ttft:1000",
                            "--out",
                            dir.filePath("r.json"),
                            "--storage-profile",
                            "tmp"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(r.out.contains("Serving Benchmark Result"));
        QVERIFY(r.out.contains("Successful requests:                     40"));
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["completed"].get<int>(), 40);
        QCOMPARE(json["total_output_tokens"].get<int>(), 320);
        QCOMPARE(json["request_goodput"].get<double>(), json["request_throughput"].get<double>());
        for (const char* key :
             {"mean_ttft_ms", "median_tpot_ms", "p90_itl_ms", "p99_e2el_ms", "std_ttft_ms"})
            QVERIFY2(json.contains(key), key);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.requestCount(json["run_id"].get<std::int64_t>()), std::int64_t(40));
        QCOMPARE(store.session(json["session_id"].get<std::int64_t>())->storageProfile,
                 std::string("tmp"));
        QCOMPARE(sim.records().size(), std::size_t(44)); // warm-up requests were really sent
    }

    void usageErrorsAndAFailingServer() {
        QCOMPARE(
            run({"load", "--url", "http://127.0.0.1:1", "--model", "m", "--requests", "1"}).code,
            2);
        QCOMPARE(run({"load", "--url", "http://127.0.0.1:1", "--model", "m", "--concurrency", "1",
                      "--rate", "2", "--requests", "1"})
                     .code,
                 2);
        QCOMPARE(
            run({"load", "--url", "http://127.0.0.1:1", "--model", "m", "--concurrency", "1"}).code,
            2);
        QTemporaryDir dir;
        const auto refused =
            run({"--db", dir.filePath("x.db"), "load", "--url", "http://127.0.0.1:1", "--model",
                 "m", "--concurrency", "2", "--requests", "3"});
        QCOMPARE(refused.code, 1);
        QVERIFY(refused.err.contains("no request succeeded"));
        QVERIFY(refused.out.contains("Failed requests:                         3"));
    }
};

QTEST_GUILESS_MAIN(TestLoadCommand)
#include "tst_loadcommand.moc"
