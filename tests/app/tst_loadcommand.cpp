#include "SseTestServer.h"
#include "TestSupport.h"
#include "core/store/Store.h"
#include "simulator/EngineSimulator.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <atomic>
#include <csignal>
#include <httplib.h>
#include <map>
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

    static nlohmann::json readJson(const QString& path) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return nullptr;
        return nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    }

  private slots:
    void storesTheRunAndItsRequests() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 500;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        test::plantLink(dir.filePath("r.json"));
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
                            "--out", // a planted link there is replaced, not followed
                            dir.filePath("r.json"),
                            "--storage-profile",
                            "tmp"});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(test::plantedLinkProblem(dir.filePath("r.json")), QString());
        QVERIFY(r.out.contains("Serving Benchmark Result"));
        QVERIFY(r.out.contains("Successful requests:                     40"));
        // vLLM's lines: the configured limit, and the peak of measured requests beside it.
        QVERIFY2(r.out.contains("Maximum request concurrency:             4\n"), r.out.constData());
        QVERIFY(r.out.contains("Peak concurrent requests:                4.00\n"));
        QVERIFY(!r.out.contains("unknown"));
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["completed"].get<int>(), 40);
        QCOMPARE(json["total_output_tokens"].get<int>(), 320);
        QCOMPARE(json["request_goodput"].get<double>(), json["request_throughput"].get<double>());
        QCOMPARE(json["max_concurrency"].get<int>(), 4);
        QCOMPARE(json["max_concurrent_requests"].get<int>(), 4);
        // A synthetic load promises no cache hits: its one validity check is the errors one.
        QCOMPARE(json["validity"].size(), std::size_t(1));
        QCOMPARE(json["validity"][0]["check"].get<std::string>(), std::string("errors"));
        QCOMPARE(json["validity"][0]["status"].get<std::string>(), std::string("pass"));
        QVERIFY2(r.out.contains("validity: errors pass: 0 of 40 requests failed (0.0 %)\n"),
                 r.out.constData());
        for (const char* key :
             {"mean_ttft_ms", "median_tpot_ms", "p90_itl_ms", "p99_e2el_ms", "std_ttft_ms"})
            QVERIFY2(json.contains(key), key);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.requestCount(json["run_id"].get<std::int64_t>()), std::int64_t(40));
        QCOMPARE(store.session(json["session_id"].get<std::int64_t>())->storageProfile,
                 std::string("tmp"));
        QCOMPARE(sim.records().size(), std::size_t(44)); // warm-up requests were really sent
    }

    // --dataset cold-recovery: the documents once (a run of status populate), the prefix-cache
    // reset, then the questions over them, whose cached prefix the engine restores.
    void coldRecoveryPopulatesResetsAndMeasures() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator::Options options;
        options.kvDir = kv.path().toStdString();
        options.kvBytesPerToken = 1024;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString db = dir.filePath("c.db");
        const auto r = run({"--db",
                            db,
                            "load",
                            "--url",
                            url,
                            "--model",
                            "tierscope-sim",
                            "--concurrency",
                            "2",
                            "--dataset",
                            "cold-recovery",
                            "--documents",
                            "3",
                            "--document-tokens",
                            "600",
                            "--questions",
                            "2",
                            "--output-len",
                            "4",
                            "--reset-prefix-cache",
                            "--max-failure-rate",
                            "0.01",
                            "--kv-path",
                            kv.path(),
                            "--kv-bytes-per-token",
                            "1024",
                            "--out",
                            dir.filePath("c.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("Populate phase: 3 documents, 3 completed"), r.out.constData());
        QVERIFY2(r.out.contains("Reset: reset_prefix_cache ok"), r.out.constData());
        QVERIFY(r.out.contains("Successful requests:                     6"));
        const auto json = readJson(dir.filePath("c.json"));
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(json["session_id"].get<std::int64_t>());
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[0].status, std::string("populate"));
        QCOMPARE(store.requestCount(runs[0].id), std::int64_t(3));
        QCOMPARE(runs[1].status, std::string("completed"));
        const auto records = sim.records();
        QCOMPARE(records.size(), std::size_t(9));
        for (std::size_t i = 3; i < records.size(); ++i) // 600 words: two 256-token chunks each
            QCOMPARE(records[i].cachedTokens, 512);
        // The measured phase's validity checks, as an experiment's cold-recovery run gets them,
        // in the output and stored with the run.
        QVERIFY2(r.out.contains("validity: errors pass: 0 of 6 requests failed (0.0 %), limit "
                                "1.0 %\n"),
                 r.out.constData());
        std::map<std::string, std::string> checks;
        for (const auto& c : json["validity"])
            checks[c["check"].get<std::string>()] = c["status"].get<std::string>();
        QCOMPARE(checks["errors"], std::string("pass"));
        QVERIFY(checks.count("storage_evidence")); // its verdict depends on the page cache here
        // The questions hit their documents' cached prefixes: hits moved, so not a fail.
        QVERIFY2(checks["cache_evidence"] == "pass" || checks["cache_evidence"] == "warn",
                 json["validity"].dump().c_str());
        QVERIFY(nlohmann::json::parse(runs[1].summaryJson)["validity"] == json["validity"]);
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
                 "--duration", "300s", "--output-len", "8", "--out", dir.filePath("r.json")});
        QVERIFY(p.waitForStarted());
        auto stored = [&]() -> std::int64_t {
            if (!QFile::exists(db))
                return 0;
            try {
                Store store(db.toStdString(), Store::Mode::ReadOnly);
                return store.requestCount(1); // the first run of a new database
            } catch (const std::exception&) { // created, not yet a workspace
                return 0;
            }
        };
        // The run goes on until Ctrl-C, so however slowly it starts, requests stored now were
        // stored during it; and more come while it still runs.
        QTRY_VERIFY_WITH_TIMEOUT(stored() > 0, 120000);
        const std::int64_t midRun = stored();
        QTRY_VERIFY_WITH_TIMEOUT(stored() > midRun, 120000);
        QVERIFY(p.state() == QProcess::Running);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
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

    // A workspace that fills during a run: the requests stored so far stay, the run stops by
    // itself (here long before its 300 s) and says so, exit 5; the --out file on another disk
    // has the figures. Never "cannot rollback - no transaction is active".
    void aFullWorkspaceStopsTheRunAndKeepsItsFigures() {
        if (QProcess::execute("unshare", {"-Urm", "true"}) != 0)
            QSKIP("unprivileged user namespaces are disabled on this kernel");
        EngineSimulator::Options options;
        options.decodeTokensPerS = 5000;
        EngineSimulator sim(options);
        const QString url = QString("http://127.0.0.1:%1").arg(sim.start());
        QTemporaryDir dir;
        const QString mount = dir.filePath("small");
        QVERIFY(QDir().mkpath(mount));
        const QString script =
            QString("mount -t tmpfs -o size=384k tmpfs '%1' && '%2' --db '%1/w.db' load --url '%3' "
                    "--model tierscope-sim --concurrency 8 --duration 300s --output-len 2 "
                    "--out '%4'")
                .arg(mount, TIERSCOPE_BINARY, url, dir.filePath("r.json"));
        QProcess p;
        p.start("unshare", {"-Urm", "sh", "-c", script});
        QVERIFY(p.waitForFinished(200000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitCode(), 5);
        QVERIFY2(err.contains("storing requests failed") && err.contains("full") &&
                     !err.contains("cannot rollback"),
                 err.constData());
        const auto json = readJson(dir.filePath("r.json"));
        QVERIFY2(json.is_object() && json.contains("store_error"), json.dump().c_str());
        QVERIFY(json["stored_requests"].get<std::int64_t>() > 0);
        // Stopped once the failure was seen: at most the requests in flight then, and those
        // of one commit interval, beyond the ones the workspace refused.
        QVERIFY(json["issued_requests"].get<std::int64_t>() <
                json["stored_requests"].get<std::int64_t>() * 4 + 1000);
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
        QVERIFY2(!refused.out.contains("TTFT (ms)"), refused.out.constData());
    }

    // Every request failed: no latency figure is printed or stored as 0, and the exit status
    // says so with the server's first error.
    void anAllFailedRunPrintsNoLatencyFigures() {
        test::SseTestServer server([](const std::string&) {
            test::SseTestServer::Reply r;
            r.status = 503;
            r.errorBody = R"({"error":{"message":"model is loading"}})";
            return r;
        });
        QTemporaryDir dir;
        const auto r = run({"--db", dir.filePath("w.db"), "load", "--url",
                            QString::fromStdString(server.url()), "--model", "m", "--concurrency",
                            "2", "--requests", "4", "--out", dir.filePath("r.json")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("first error: HTTP 503") && r.err.contains("model is loading"),
                 r.err.constData());
        for (const char* absent : {"TTFT", "TPOT", "ITL", "E2EL"})
            QVERIFY2(!r.out.contains(absent), absent);
        QVERIFY(r.out.contains("No latency figures: no request succeeded"));
        const auto json = readJson(dir.filePath("r.json"));
        QCOMPARE(json["failed"].get<int>(), 4);
        for (const char* key : {"mean_ttft_ms", "p99_ttft_ms", "mean_itl_ms", "median_e2el_ms"})
            QVERIFY2(json.at(key).is_null(), key);
    }

    // Two tokens in each chunk and no usage chunk: the token figures are not invented from the
    // chunk count; they are null in the JSON and one line says why.
    void withoutUsageTheTokenFiguresAreAbsent() {
        test::SseTestServer server([](const std::string&) {
            test::SseTestServer::Reply r;
            for (int i = 0; i < 4; ++i)
                r.events.push_back({i, test::SseTestServer::textChunk("ab")});
            r.events.push_back({4, test::SseTestServer::done()});
            return r;
        });
        QTemporaryDir dir;
        const auto r = run({"--db", dir.filePath("w.db"), "load", "--url",
                            QString::fromStdString(server.url()), "--model", "m", "--concurrency",
                            "2", "--requests", "4", "--out", dir.filePath("r.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("Generated tokens unknown: 4 of 4 responses had no usage chunk"),
                 r.out.constData());
        for (const char* absent : {"Total generated tokens:", "Output token throughput",
                                   "Total Token throughput", "TPOT (ms)", "Total input tokens:"})
            QVERIFY2(!r.out.contains(absent), absent);
        QVERIFY(r.out.contains("Mean TTFT (ms):"));
        QVERIFY(r.out.contains("Mean ITL (ms):"));
        const auto json = readJson(dir.filePath("r.json"));
        for (const char* key : {"total_output_tokens", "output_throughput", "total_input_tokens",
                                "total_token_throughput", "mean_tpot_ms"})
            QVERIFY2(json.at(key).is_null(), key);
        QCOMPARE(json["completed"].get<int>(), 4);
        Store store(dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        for (const auto& row : store.requests(json["run_id"].get<std::int64_t>()))
            QVERIFY(row.ok && !row.outputTokens); // stored as unknown (NULL), not 4 chunks
    }

    // Only http and https: a file:// URL would make libcurl read a local file, gopher:// and
    // friends hang. Refused before anything is written.
    void onlyHttpUrlsAreTargets() {
        QTemporaryDir dir;
        for (const char* url : {"file:///etc/passwd", "gopher://127.0.0.1:70/", "dict://x:2628/",
                                "ftp://127.0.0.1/", "localhost:8000"}) {
            const auto r = run({"--db", dir.filePath("w.db"), "load", "--url", url, "--model", "m",
                                "--concurrency", "1", "--requests", "1"});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("http:// or https://"), r.err.constData());
            QVERIFY(!r.out.contains("root:")); // nothing of /etc/passwd
        }
        QVERIFY(!QFile::exists(dir.filePath("w.db")));
    }

    // A password in the URL reaches the server (basic auth) and nothing else: not the
    // workspace, the result file, the output or the logs.
    // A credential in the URL, as user:password or as a query key, reaches the server and
    // is kept nowhere: not the workspace, the output, the logs or the result file.
    void aSecretInTheUrlIsNeverKept_data() {
        QTest::addColumn<QString>("form");
        QTest::addColumn<QString>("shown");
        QTest::newRow("password") << "http://user:%1@127.0.0.1:%2"
                                  << "http://127.0.0.1:%2/v1/completions";
        QTest::newRow("query key") << "http://127.0.0.1:%2/v1/completions?api_key=%1&v=2"
                                   << "http://127.0.0.1:%2/v1/completions?api_key=<redacted>&v=2";
    }
    void aSecretInTheUrlIsNeverKept() {
        QFETCH(QString, form);
        QFETCH(QString, shown);
        const std::string password = "pw-5c1d0e77";
        test::SseTestServer server([](const std::string&) {
            test::SseTestServer::Reply r;
            r.events = {{0, test::SseTestServer::textChunk("hi")},
                        {0, test::SseTestServer::usageChunk(3, 1)},
                        {0, test::SseTestServer::done()}};
            return r;
        });
        QTemporaryDir dir;
        const QString url = form.arg(password.c_str()).arg(server.port());
        const auto r = run({"--db", dir.filePath("w.db"), "--log-level", "trace", "load", "--url",
                            url, "--model", "m", "--concurrency", "1", "--requests", "2", "--out",
                            dir.filePath("r.json")});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(server.requests(), 2);
        if (form.contains('@'))
            QVERIFY(server.headers().front().find("Authorization: Basic") != std::string::npos);
        QVERIFY(!(r.out + r.err).contains(password.c_str()));
        int scanned = 0;
        for (QDirIterator it(dir.path(), QDir::Files); it.hasNext(); ++scanned) {
            QFile f(it.next());
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(password.c_str()), qPrintable(f.fileName()));
        }
        QVERIFY(scanned >= 2);
        const auto json = readJson(dir.filePath("r.json"));
        QCOMPARE(QString::fromStdString(json["endpoint"].get<std::string>()),
                 shown.arg(server.port()));
    }

    // Numbers out of range are usage errors before anything is allocated, with the limit in
    // the message: --rounds 0 used to crash, --input-len 100000000 took 3 GB.
    void absurdNumbersAreUsageErrors() {
        QTemporaryDir dir;
        auto load = [&](QStringList extra) {
            QStringList args{"--db",
                             dir.filePath("w.db"),
                             "load",
                             "--url",
                             "http://127.0.0.1:1",
                             "--model",
                             "m",
                             "--concurrency",
                             "1",
                             "--requests",
                             "1"};
            return run(args + extra);
        };
        for (const char* rounds : {"0", "-1"}) {
            const auto r = load({"--dataset", "shared-prefix", "--rounds", rounds});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("rounds must be between 1 and 1000"), r.err.constData());
        }
        const auto longPrompt = load({"--input-len", "100000000"});
        QCOMPARE(longPrompt.code, 2);
        QVERIFY2(longPrompt.err.contains("between 0 and 1000000"), longPrompt.err.constData());
        QElapsedTimer timer;
        timer.start();
        const auto many =
            run({"--db", dir.filePath("w.db"), "load", "--url", "http://127.0.0.1:1", "--model",
                 "m", "--concurrency", "1", "--requests", "2000000000", "--warmup", "2000000000"});
        QCOMPARE(many.code, 2);
        QVERIFY2(many.err.contains("at most"), many.err.constData());
        const auto total =
            run({"--db", dir.filePath("w.db"), "load", "--url", "http://127.0.0.1:1", "--model",
                 "m", "--concurrency", "1", "--requests", "1000", "--input-len", "1000000"});
        QCOMPARE(total.code, 2);
        QVERIFY2(total.err.contains("100000000"), total.err.constData());
        QVERIFY(timer.elapsed() < 30000); // refused, not built
        QCOMPARE(load({"--warmup", "-1"}).code, 2);
        QCOMPARE(load({"--output-len", "0"}).code, 2);
        // An extra body that is not a JSON object, or sets what the measurement owns.
        const auto notJson = load({"--extra-body", "top_k=1"});
        QCOMPARE(notJson.code, 2);
        QVERIFY2(notJson.err.contains("--extra-body is not JSON"), notJson.err.constData());
        const auto owned = load({"--extra-body", R"({"max_tokens": 9})"});
        QCOMPARE(owned.code, 2);
        QVERIFY2(owned.err.contains("may not set \"max_tokens\""), owned.err.constData());
        QVERIFY(!QFile::exists(dir.filePath("w.db")));
    }
};

QTEST_GUILESS_MAIN(TestLoadCommand)
#include "tst_loadcommand.moc"
