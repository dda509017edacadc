#include "TestSupport.h"
#include "collectors/EngineSimulator.h"
#include "core/Store.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <atomic>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <thread>

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

    // Requests are in the store while the run goes on (a soak must not hold them all), and at
    // the end every one the summary counts is there.
    void storesRequestsDuringTheRun() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 200;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "load", "--url", url, "--model", "tierscope-sim", "--concurrency", "8",
                 "--duration", "4s", "--output-len", "8", "--out", dir.filePath("r.json")});
        QVERIFY(p.waitForStarted());
        std::int64_t midRun = 0;
        for (int i = 0; i < 30 && midRun == 0 && p.state() == QProcess::Running; ++i) {
            QTest::qWait(100);
            if (!QFile::exists(db))
                continue;
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            midRun = store.requestCount(1); // the first run of a new database
        }
        QVERIFY(p.state() == QProcess::Running);
        QVERIFY2(midRun > 0, "no request was stored while the run was going on");
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        const auto total =
            json["completed"].get<std::int64_t>() + json["failed"].get<std::int64_t>();
        QVERIFY(total > midRun);
        QCOMPARE(json["stored_requests"].get<std::int64_t>(), total);
        QCOMPARE(json["issued_requests"].get<std::int64_t>(), total);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.requestCount(json["run_id"].get<std::int64_t>()), total);
    }

    // The bearer token named by --token-env reaches the server and nothing else: not the
    // database, the output, the logs or the result file.
    void bearerTokenIsSentAndNeverKept() {
        const std::string token = "tierscope-test-token-9f3c1e";
        std::atomic<int> authorised{0}, refused{0};
        httplib::Server server;
        server.Post("/v1/completions", [&](const httplib::Request& req, httplib::Response& res) {
            if (req.get_header_value("Authorization") != "Bearer " + token) {
                ++refused;
                res.status = 401;
                return;
            }
            ++authorised;
            res.set_content("data: {\"id\":\"c1\",\"choices\":[{\"text\":\"hi\"}]}\n\n"
                            "data: [DONE]\n\n",
                            "text/event-stream");
        });
        const int port = server.bind_to_any_port("127.0.0.1");
        std::thread listener([&] { server.listen_after_bind(); });
        QTemporaryDir dir;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TIERSCOPE_TEST_LOAD_TOKEN", QString::fromStdString(token));
        p.setProcessEnvironment(env);
        p.start(TIERSCOPE_BINARY, {"--db", dir.filePath("w.db"), "--log-level", "trace", "load",
                                   "--url", QString("http://127.0.0.1:%1").arg(port), "--model",
                                   "m", "--concurrency", "2", "--requests", "6", "--token-env",
                                   "TIERSCOPE_TEST_LOAD_TOKEN", "--out", dir.filePath("r.json")});
        QVERIFY(p.waitForFinished(60000));
        server.stop();
        listener.join();
        const QByteArray output = p.readAllStandardOutput() + p.readAllStandardError(); // logs too
        QVERIFY2(p.exitCode() == 0, output.constData());
        QCOMPARE(authorised.load(), 6);
        QCOMPARE(refused.load(), 0);
        QVERIFY(!output.contains(token.c_str()));
        int scanned = 0;
        for (QDirIterator it(dir.path(), QDir::Files); it.hasNext(); ++scanned) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(token.c_str()), qPrintable(f.fileName()));
        }
        QVERIFY(scanned >= 2); // at least the database and the result file
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
