#include "TestSupport.h"
#include "core/store/Store.h"
#include "core/store/VllmBenchImport.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <set>

using namespace tierscope;

class TestVllmBenchImport : public QObject {
    Q_OBJECT
  private:
    static nlohmann::json storedSummary(const std::string& db, std::int64_t run) {
        Store store(db, Store::Mode::ReadOnly);
        auto q = store.db().prepare("SELECT summary FROM run WHERE id = ?");
        q.bind(1, run);
        if (!q.step())
            qFatal("no run %lld", static_cast<long long>(run));
        return nlohmann::json::parse(q.columnText(0));
    }

    // `tierscope --db DB ARGS`: its exit code and its output, stdout then stderr.
    static std::pair<int, QByteArray> run(const QString& db, const QStringList& args) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, QStringList{"--db", db} + args);
        p.waitForFinished(60000);
        return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
    }

    // A --save-detailed result of n requests, each with 8 gaps and its generated text.
    static nlohmann::json detailed(int n) {
        auto file = nlohmann::json::parse(
            test::fixture("vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json"));
        for (const char* key :
             {"input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors"})
            file[key] = nlohmann::json::array();
        for (int i = 0; i < n; ++i) {
            file["input_lens"].push_back(100 + i % 7);
            file["output_lens"].push_back(9);
            file["ttfts"].push_back(0.1 + (i % 10) * 0.01);
            file["itls"].push_back(std::vector<double>(8, 0.02));
            file["generated_texts"].push_back(std::string(64, 'w'));
            file["errors"].push_back("");
        }
        file["completed"] = n;
        file["failed"] = 0;
        file["num_prompts"] = n;
        return file;
    }
    static std::size_t sessionCount(const QString& db) {
        if (!QFile::exists(db))
            return 0;
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        return store.sessions().size();
    }

  private slots:
    void realResultsRoundTripExactly() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        std::int64_t run = 0;
        for (const char* name : {"vllm-bench-serve-0.10-qwen3-vl-8b.json",
                                 "vllm-bench-serve-0.10-qwen2.5-vl-3b.json"}) {
            const QString path = QStringLiteral(TIERSCOPE_FIXTURES "/vllm-bench/") + name;
            QProcess p;
            p.start(TIERSCOPE_BINARY,
                    {"--db", db, "import", "vllm-bench", path, "--storage-profile", "nfs"});
            QVERIFY(p.waitForFinished(30000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            ++run;
            const auto original =
                nlohmann::json::parse(test::fixture(QString("vllm-bench/") + name));
            const auto stored = storedSummary(db.toStdString(), run);
            for (const auto& [key, value] : original.items())
                QVERIFY2(stored.at(key) == value, key.c_str()); // bit-exact doubles, nulls kept
        }
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.sessions().size(), std::size_t(2));
        QCOMPARE(store.sessions()[1].storageProfile, std::string("nfs"));
        QCOMPARE(store.sessions()[1].label, std::string("vllm bench ./Qwen2.5-VL-3B-Instruct"));
        const auto s = store.sessions()[0];
        QVERIFY(s.endNs && std::abs((*s.endNs - s.startNs) / 1e9 - 203.5104987300001) < 1e-6);
    }

    void detailedArraysBecomeRequests() {
        const auto imported = VllmBenchImport::parse(
            test::fixture("vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json"));
        QCOMPARE(imported.requests.size(), std::size_t(3));
        QCOMPARE(*imported.requests[0].ttftS, 0.1);
        QCOMPARE(imported.requests[0].itlS.size(), std::size_t(3));
        QCOMPARE(*imported.requests[0].e2eS, 0.1 + 0.02 + 0.03 + 0.025);
        QCOMPARE(*imported.requests[1].promptTokens, 200);
        QVERIFY(!imported.requests[2].ok());
        QVERIFY(!imported.requests[2].ttftS); // a failed request has no TTFT, not a zero one
        QCOMPARE(imported.label, std::string("kv-on-nvmeof"));
        QVERIFY(!imported.summary.contains("ttfts")); // arrays go to rows, not the summary
        QCOMPARE(imported.summary["request_rate"].get<std::string>(), std::string("inf"));
    }

    // Several results (JSON Lines) as the repetitions of one arm; without per-request arrays
    // the files' own figures are the runs' KPIs, exactly.
    void importedArmsCompareWithTheFilesFigures() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        auto tierscope = [&](const QStringList& args) { return run(db, args); };
        for (const char* arm : {"local", "nvmeof"}) {
            const auto r =
                tierscope({"import", "vllm-bench",
                           QStringLiteral(TIERSCOPE_FIXTURES "/vllm-bench/"
                                                             "vllm-bench-serve-append-%1.jsonl")
                               .arg(arm),
                           "--experiment", "kv", "--arm", arm});
            QVERIFY2(r.first == 0, r.second.constData());
            QCOMPARE(r.second.count("imported "), 3);
        }
        const auto out = tierscope({"compare", "arm:kv/local", "arm:kv/nvmeof", "--format", "json",
                                    "--gate-preset", "G3", "--gate", "goodput >= +20%"});
        QVERIFY2(out.first == 0, out.second.constData()); // every gate passes
        const auto report = nlohmann::json::parse(out.second.toStdString());
        auto kpi = [&](const char* name) {
            for (const auto& k : report["kpis"])
                if (k["kpi"] == name)
                    return k;
            return nlohmann::json();
        };
        QCOMPARE(kpi("ttft_p50")["runs_a"], (nlohmann::json{0.4, 0.41, 0.42}));
        QCOMPARE(kpi("ttft_p50")["runs_b"], (nlohmann::json{0.25, 0.26, 0.27}));
        QCOMPARE(kpi("output_throughput")["runs_b"], (nlohmann::json{1400.0, 1410.0, 1390.0}));
        QCOMPARE(kpi("goodput")["runs_a"], (nlohmann::json{5.0, 5.25, 4.75})); // "request_goodput:"
        QCOMPARE(kpi("ttft_p99")["runs_a"][0].get<double>(), 400.0 * 1.8 / 1000);
        QCOMPARE(kpi("tpot_mean")["a"].get<double>(), 0.02);
        QCOMPARE(kpi("ttft_p50")["n_a"].get<int>(), 3);
        QVERIFY(kpi("failure_rate").is_null()); // these files do not say how many failed
        QCOMPARE(report["gates"].size(), std::size_t(3));
        for (const auto& g : report["gates"])
            QCOMPARE(g["verdict"].get<std::string>(), std::string("pass"));
    }

    // With per-request arrays the file's figures still win; the rows give the failure rate.
    void detailedImportsCompareAsRuns() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const QString file = QStringLiteral(
            TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json");
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "import", "vllm-bench", file, file, file, file});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "compare", "run:1,2", "run:3-4", "--format", "json"});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto report = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        bool sawTtft = false, sawFailures = false;
        for (const auto& k : report["kpis"]) {
            if (k["kpi"] == "ttft_p50") {
                QCOMPARE(k["runs_a"], (nlohmann::json{0.15, 0.15}));
                sawTtft = true;
            }
            if (k["kpi"] == "failure_rate") {
                QCOMPARE(k["a"].get<double>(), 100.0 / 3);
                sawFailures = true;
            }
        }
        QVERIFY(sawTtft && sawFailures);
    }

    // vLLM writes 0 for every latency figure of a run whose requests all failed
    // (np.median(ttfts or 0)): those are absent, so an arm that failed is never "faster".
    void aRunWithNoCompletedRequestHasNoLatency() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        auto tierscope = [&](const QStringList& args) { return run(db, args); };
        const QString ok =
            QStringLiteral(TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-qwen3-vl-8b.json");
        const QString failed =
            QStringLiteral(TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-all-failed.json");
        for (const auto& [arm, file] : {std::pair{"ok", ok}, {"failed", failed}}) {
            const auto r =
                tierscope({"import", "vllm-bench", file, file, "--experiment", "e", "--arm", arm});
            QVERIFY2(r.first == 0, r.second.constData());
        }
        const auto out = tierscope({"compare", "arm:e/ok", "arm:e/failed", "--format", "json",
                                    "--gate", "ttft_p50 <= -25%"});
        const auto report = nlohmann::json::parse(out.second.toStdString());
        std::set<std::string> names;
        for (const auto& k : report["kpis"]) {
            names.insert(k["kpi"]);
            if (k["kpi"] == "failure_rate")
                QCOMPARE(k["b"].get<double>(), 100.0);
        }
        for (const char* latency : {"ttft_p50", "ttft_mean", "ttft_p99", "tpot_mean", "itl_mean"})
            QVERIFY2(!names.count(latency), latency);
        QVERIFY(names.count("failure_rate") && names.count("output_throughput"));
        QCOMPARE(report["gates"][0]["verdict"].get<std::string>(), std::string("undecided"));
        const std::string headline = report["headline"];
        QVERIFY2(headline.find("TTFT") == std::string::npos, headline.c_str());
        QVERIFY2(headline.starts_with("A is better"), headline.c_str());
    }

    // A summary figure that the file's own per-request arrays contradict (an edited file, a
    // writer with other definitions) is flagged, and the requests' figure is used.
    void aSummaryItsArraysContradictIsFlaggedNotUsed() {
        QTemporaryDir dir;
        auto file = nlohmann::json::parse(
            test::fixture("vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json"));
        file["median_ttft_ms"] = 0.0;
        const QString edited = dir.filePath("edited.json");
        {
            QFile f(edited);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(file.dump()));
        }
        const QString db = dir.filePath("w.db");
        const QString clean = QStringLiteral(
            TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json");
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "import", "vllm-bench", edited, edited, clean, clean});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "compare", "run:1,2", "run:3-4", "--format", "json"});
        QVERIFY(p.waitForFinished(30000));
        const auto report = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        bool sawTtft = false;
        for (const auto& k : report["kpis"])
            if (k["kpi"] == "ttft_p50") {
                sawTtft = true;
                QCOMPARE(k["runs_a"].size(), std::size_t(2));
                for (const auto& v : k["runs_a"]) // the median of 0.1 and 0.2 s, not 0
                    QVERIFY(std::abs(v.get<double>() - 0.15) < 1e-12);
            }
        QVERIFY(sawTtft);
        QCOMPARE(report["warnings"].size(), std::size_t(2));
        QCOMPARE(report["warnings"][0].get<std::string>(),
                 std::string("A: run 1: summary_consistency warn: median_ttft_ms 0.000 ms in the "
                             "summary, 150.000 ms from its 3 requests: the requests' figure is "
                             "used"));
    }

    // Values that are not figures refuse the import (exit 2) before anything is stored, so a
    // retry after the fix does not duplicate the good files named before the bad one.
    void valuesThatAreNotFiguresRefuseTheWholeImport_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("said");
        QTest::newRow("count as text") << "/completed"
                                       << "\"2\""
                                       << "\"completed\" is \"2\"";
        QTest::newRow("fractional count") << "/total_output_tokens"
                                          << "1.5"
                                          << "\"total_output_tokens\" is 1.5";
        QTest::newRow("negative summary latency") << "/p99_ttft_ms"
                                                  << "-1"
                                                  << "\"p99_ttft_ms\" is -1";
        QTest::newRow("no mean TTFT") << "/mean_ttft_ms"
                                      << "null"
                                      << "\"mean_ttft_ms\" is null";
        QTest::newRow("negative duration") << "/duration"
                                           << "-2.5"
                                           << "\"duration\" is -2.5";
        QTest::newRow("negative TTFT") << "/ttfts/0"
                                       << "-0.1"
                                       << "\"ttfts\" of request 0 is -0.1";
        QTest::newRow("absurd TTFT") << "/ttfts/1"
                                     << "1e300"
                                     << "\"ttfts\" of request 1 is 1e+300";
        QTest::newRow("TTFT as text") << "/ttfts/1"
                                      << "\"0.2\""
                                      << "\"ttfts\" of request 1 is not a number";
        QTest::newRow("nested TTFT") << "/ttfts/0"
                                     << "[0.1]"
                                     << "\"ttfts\" holds a list where a value belongs";
        QTest::newRow("negative tokens") << "/input_lens/0"
                                         << "-5"
                                         << "\"input_lens\" of request 0 is -5";
        QTest::newRow("absurd tokens") << "/output_lens/1"
                                       << "2000000000"
                                       << "\"output_lens\" of request 1 is 2000000000";
        QTest::newRow("gap as text") << "/itls/0/1"
                                     << "\"x\""
                                     << "\"itls\" of request 0 holds \"x\"";
        QTest::newRow("one error for three requests") << "/errors"
                                                      << "[\"\"]"
                                                      << "\"errors\" has 1 entries";
        QTest::newRow("date overflow") << "/date"
                                       << "\"99991231-235959\""
                                       << "\"date\" is \"99991231-235959\"";
        QTest::newRow("date of another format") << "/date"
                                                << "\"2026-11-30 06:15\""
                                                << "\"date\" is \"2026-11-30 06:15\"";
    }
    void valuesThatAreNotFiguresRefuseTheWholeImport() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, said);
        auto file = nlohmann::json::parse(
            test::fixture("vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json"));
        file[nlohmann::json::json_pointer(pointer.toStdString())] =
            nlohmann::json::parse(value.toStdString());
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse(file.dump()));
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        test::writeFileBytes(bad.toStdString(), file.dump());
        const QString db = dir.filePath("w.db");
        const QString good = QStringLiteral(
            TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json");
        const auto [code, out] = run(db, {"import", "vllm-bench", good, bad});
        QCOMPARE(code, 2);
        QVERIFY2(out.contains(said.toUtf8()) && out.contains("nothing imported"), out.constData());
        QCOMPARE(sessionCount(db), std::size_t(0)); // not even the good file
    }

    // A kill at any moment leaves either nothing or the whole import: one transaction. SIGTERM
    // is taken within moments, not after the last row.
    void anImportKilledAtAnyMomentStoresAllOrNothing() {
        QTemporaryDir dir;
        const QString big = dir.filePath("big.json");
        const int n = 60000;
        test::writeFileBytes(big.toStdString(), detailed(n).dump());
        int partial = 0, whole = 0, none = 0;
        for (const int signal : {SIGKILL, SIGTERM, SIGKILL, SIGTERM}) {
            const QString db = dir.filePath(QString("k%1-%2.db").arg(signal).arg(none + whole));
            QProcess p;
            p.start(TIERSCOPE_BINARY, {"--db", db, "import", "vllm-bench", big, big});
            QVERIFY(p.waitForStarted());
            // The workspace appears once every file has been read and checked: writing began.
            QDeadlineTimer opened(60000);
            while (!QFile::exists(db) && !opened.hasExpired() && p.state() == QProcess::Running)
                QTest::qWait(5);
            ::kill(static_cast<pid_t>(p.processId()), signal);
            QVERIFY(p.waitForFinished(10000));
            if (signal == SIGTERM && p.exitStatus() == QProcess::NormalExit && p.exitCode() != 0)
                QCOMPARE(p.exitCode(), 128 + SIGTERM);
            // ReadWrite: a kill before the schema's first commit leaves an empty file.
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            const auto sessions = store.sessions();
            if (sessions.empty()) {
                ++none;
                continue;
            }
            const auto runs = store.runsOfSession(sessions.front().id);
            bool complete = runs.size() == 2;
            for (const auto& r : runs)
                complete = complete && r.status == "imported" && store.requestCount(r.id) == n;
            ++(complete ? whole : partial);
        }
        QCOMPARE(partial, 0);
        QCOMPARE(none + whole, 4);
    }

    // A workspace whose disk fills mid-import keeps what it had and says why (exit 5), not
    // "cannot rollback - no transaction is active" (exit 7).
    void aFullDiskKeepsTheWorkspaceAsItWas() {
        if (QProcess::execute("unshare", {"-Urm", "true"}) != 0)
            QSKIP("unprivileged user namespaces are disabled on this kernel");
        QTemporaryDir dir;
        const QString big = dir.filePath("big.json");
        test::writeFileBytes(big.toStdString(), detailed(20000).dump());
        const QString mount = dir.filePath("small");
        QVERIFY(QDir().mkpath(mount));
        const QString good = QStringLiteral(
            TIERSCOPE_FIXTURES "/vllm-bench/vllm-bench-serve-0.10-detailed-assembled.json");
        const QString db = mount + "/w.db";
        // In a private mount namespace: a 512 KiB tmpfs holds the workspace; the small import
        // fits, the big one (about 2 MB of rows) does not; the files are copied out to look at.
        const QString script =
            QString("mount -t tmpfs -o size=512k tmpfs '%1' && '%2' --db '%3' import vllm-bench "
                    "'%4' && '%2' --db '%3' import vllm-bench '%5'; rc=$?; mkdir '%6/after'; "
                    "cp '%3'* '%6/after/'; exit $rc")
                .arg(mount, TIERSCOPE_BINARY, db, good, big, dir.path());
        QProcess p;
        p.start("unshare", {"-Urm", "sh", "-c", script});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitCode(), 5);
        QVERIFY2(err.contains("full") && !err.contains("cannot rollback"), err.constData());
        Store store(dir.filePath("after/w.db").toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.sessions().size(), std::size_t(1));
        const auto runs = store.runsOfSession(store.sessions().front().id);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().status, std::string("imported"));
    }

    void jsonLinesNameTheBadLine() {
        const auto good = test::fixture("vllm-bench/vllm-bench-serve-append-local.jsonl");
        QCOMPARE(VllmBenchImport::parseAll(good).size(), std::size_t(3));
        try {
            VllmBenchImport::parseAll(good + "{\"completed\": 1}\n");
            QFAIL("accepted a line that is no result");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("line 4") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parseAll("\n\n"));
    }

    void refusesOtherFiles() {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("[1,2]"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("{\"completed\": 3}"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("not json"));
    }
};

QTEST_GUILESS_MAIN(TestVllmBenchImport)
#include "tst_vllmbenchimport.moc"
