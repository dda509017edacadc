#include "TestSupport.h"
#include "core/store/AiperfImport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <sstream>

using namespace tierscope;

namespace {

using Json = nlohmann::json;

const char* const kFull = "aiperf/aiperf-0.1-concurrency4-assembled/";
const char* const kNewer = "aiperf/aiperf-schema-1.0-summary-only-assembled/";

struct Result {
    int code = -1;
    QByteArray out;
};

Result runTierscope(const QString& db, const QStringList& args) {
    QProcess p;
    p.start(TIERSCOPE_BINARY, QStringList{"--db", db} + args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
}

QString folder(const char* relative) {
    return QStringLiteral(TIERSCOPE_FIXTURES "/") + relative;
}

ImportedRun parseFull() {
    std::istringstream records(test::fixture(QString(kFull) + "profile_export.jsonl"));
    return AiperfImport::parse(test::fixture(QString(kFull) + "profile_export_aiperf.json"),
                               &records);
}

const Json& kpi(const Json& report, const char* name) {
    static const Json none;
    for (const auto& k : report["kpis"])
        if (k["kpi"] == name)
            return k;
    return none;
}

} // namespace

class TestAiperfImport : public QObject {
    Q_OBJECT
  private slots:
    // AIPerf's own figures are the run's KPIs, in seconds: its ITL (per request, latency less
    // TTFT over OSL - 1) is TPOT, its ICL (every chunk gap pooled) is ITL.
    void summaryFiguresAreTheRunsKpis() {
        const auto run = parseFull();
        const auto file = Json::parse(test::fixture(QString(kFull) + "profile_export_aiperf.json"));
        QCOMPARE(run.workload, std::string("aiperf"));
        const Json& k = run.summary["imported_kpis"];
        QCOMPARE(k["ttft_p50"].get<double>(), 47.25 / 1e3);
        QCOMPARE(k["ttft_mean"].get<double>(),
                 file["time_to_first_token"]["avg"].get<double>() / 1e3);
        QCOMPARE(k["ttft_p90"].get<double>(),
                 file["time_to_first_token"]["p90"].get<double>() / 1e3);
        QCOMPARE(k["ttft_p99"].get<double>(),
                 file["time_to_first_token"]["p99"].get<double>() / 1e3);
        QCOMPARE(k["tpot_mean"].get<double>(),
                 file["inter_token_latency"]["avg"].get<double>() / 1e3);
        QCOMPARE(k["itl_mean"].get<double>(),
                 file["inter_chunk_latency"]["avg"].get<double>() / 1e3);
        QCOMPARE(k["e2el_p50"].get<double>(), 101.5 / 1e3);
        QCOMPARE(k["e2el_p99"].get<double>(), file["request_latency"]["p99"].get<double>() / 1e3);
        QCOMPARE(k["output_throughput"].get<double>(),
                 file["output_token_throughput"]["avg"].get<double>());
        QCOMPARE(k["request_throughput"].get<double>(),
                 file["request_throughput"]["avg"].get<double>());
        QCOMPARE(k["failure_rate"].get<double>(), 100.0 / 8); // error_request_count 1, 7 valid
        QCOMPARE(k["requests_issued"].get<double>(), 8.0);
        QVERIFY(!k.contains("goodput")); // run without --goodput: none, not 0
        // The file, kept exactly (bit-exact doubles), less its configuration.
        auto kept = file;
        kept.erase("input_config");
        QCOMPARE(run.summary["aiperf"], kept);
        // What it was asked to do, without its command line.
        QCOMPARE(run.params["model"].get<std::string>(), std::string("Qwen/Qwen3-0.6B"));
        QCOMPARE(run.params["concurrency"].get<int>(), 4);
        QCOMPARE(run.params["endpoint_type"].get<std::string>(), std::string("chat"));
        QVERIFY(run.params["streaming"].get<bool>());
        QVERIFY(run.params.dump().find("cli_command") == std::string::npos);
    }

    // The records become rows; the warm-up record is left out, as AIPerf's summary leaves it.
    void recordsBecomeRows() {
        const auto run = parseFull();
        QCOMPARE(run.requests.size(), std::size_t(8));
        QCOMPARE(run.summary["records"]["warmup_left_out"].get<int>(), 1);
        const auto& first = run.requests[0];
        QCOMPARE(*first.ttftS, 41.5 / 1e3);
        QCOMPARE(*first.e2eS, 82.0 / 1e3);
        QCOMPARE(first.itlS.size(), std::size_t(8));
        QCOMPARE(first.itlS[1], 5.25 / 1e3);
        QCOMPARE(*first.promptTokens, 550);
        QCOMPARE(*first.outputTokens, 9);
        QCOMPARE(first.sendNs, std::int64_t(1796313600000000000));
        QVERIFY(first.ok());
        const auto& failed = run.requests[7];
        QVERIFY(!failed.ok());
        QCOMPARE(failed.httpStatus, 500);
        QCOMPARE(failed.error, std::string("InternalServerError: Server returned 500: KV cache "
                                           "exhausted"));
        QVERIFY(!failed.ttftS && !failed.outputTokens); // null metrics: absent, not 0
        QCOMPARE(*failed.promptTokens, 550);            // error_isl
        QCOMPARE(*run.startNs, std::int64_t(1796313600000000000));
        QCOMPARE(*run.endNs, std::int64_t(1796313600000000000) + 160'000'000 + 55'250'000 +
                                 9 * 5'750'000); // the last response
    }

    // A later AIPerf's summary only (schema_version 1.0, "count" in each record metric).
    void aSummaryWithoutRecordsHasNoRows() {
        const auto run = AiperfImport::parse(
            test::fixture(QString(kNewer) + "profile_export_aiperf.json"), nullptr);
        QVERIFY(run.requests.empty());
        QVERIFY(!run.summary.contains("records"));
        QCOMPARE(run.params["aiperf_version"].get<std::string>(), std::string("0.3.0"));
        QCOMPARE(run.summary["imported_kpis"]["ttft_p50"].get<double>(), 47.25 / 1e3);
        QCOMPARE(*run.startNs, std::int64_t(1796313600000000000)); // min_request_timestamp
    }

    // A metric the file does not hold is no KPI; an empty error summary says none failed.
    void absentFiguresStayAbsent() {
        auto file = Json::parse(test::fixture(QString(kNewer) + "profile_export_aiperf.json"));
        for (const char* metric :
             {"time_to_first_token", "inter_chunk_latency", "error_request_count"})
            file.erase(metric);
        file["error_summary"] = Json::array();
        const auto run = AiperfImport::parse(file.dump(), nullptr);
        const Json& k = run.summary["imported_kpis"];
        for (const char* name : {"ttft_mean", "ttft_p50", "ttft_p90", "ttft_p99", "itl_mean"})
            QVERIFY2(!k.contains(name), name);
        QCOMPARE(k["failure_rate"].get<double>(), 0.0);
        file.erase("error_summary");
        QVERIFY(!AiperfImport::parse(file.dump(), nullptr)
                     .summary["imported_kpis"]
                     .contains("failure_rate")); // nothing says how many failed
        // A record without a TTFT (a non-streaming endpoint) has none.
        std::istringstream records(
            R"({"metadata":{"session_num":0,"request_start_ns":1796313600000000000,)"
            R"("request_end_ns":1796313600100000000,"benchmark_phase":"profiling"},)"
            R"("metrics":{"request_latency":{"value":100.0,"unit":"ms"}},"error":null})"
            "\n");
        const auto one = AiperfImport::parse(file.dump(), &records);
        QVERIFY(!one.requests[0].ttftS);
        QCOMPARE(*one.requests[0].e2eS, 0.1);
    }

    void malformedFilesSayWhatIsWrong_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("said");
        QTest::newRow("statistic as text") << "/time_to_first_token/p50"
                                           << "\"fast\""
                                           << "\"time_to_first_token\" \"p50\" is \"fast\"";
        QTest::newRow("negative") << "/request_latency/p99"
                                  << "-1"
                                  << "\"request_latency\" \"p99\" is -1, not a figure";
        QTest::newRow("unknown unit") << "/time_to_first_token/unit"
                                      << "\"furlongs\""
                                      << "\"time_to_first_token\" \"avg\" is in \"furlongs\", not "
                                         "a unit of time";
        QTest::newRow("rate unit") << "/request_throughput/unit"
                                   << "\"requests/min\""
                                   << "\"request_throughput\" is in \"requests/min\", not "
                                      "requests/sec";
        QTest::newRow("more than a day") << "/request_latency/p50"
                                         << "1e12"
                                         << "more than a day";
        QTest::newRow("error summary") << "/error_summary"
                                       << "\"none\""
                                       << "\"error_summary\" is \"none\", not a list";
        QTest::newRow("no metric") << ""
                                   << "{\"was_cancelled\": false}"
                                   << "not AIPerf's profile_export_aiperf.json: no metric";
    }
    void malformedFilesSayWhatIsWrong() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, said);
        Json file = Json::parse(test::fixture(QString(kNewer) + "profile_export_aiperf.json"));
        if (pointer.isEmpty()) {
            file = Json::parse(value.toStdString());
            file.erase("error_request_count"); // keep the file without any metric
        } else {
            file[Json::json_pointer(pointer.toStdString())] = Json::parse(value.toStdString());
            if (pointer == "/error_summary")
                file.erase("error_request_count"); // the summary is read only without the count
        }
        try {
            AiperfImport::parse(file.dump(), nullptr);
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(said.toStdString()) != std::string::npos, e.what());
        }
    }

    void badRecordsNameTheirLine_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("said");
        QTest::newRow("negative TTFT")
            << R"({"metadata":{"request_start_ns":1,"benchmark_phase":"profiling"},"metrics":)"
               R"({"time_to_first_token":{"value":-3,"unit":"ms"}}})"
            << "profile_export.jsonl line 2: \"time_to_first_token\" is -3, not a figure";
        QTest::newRow("fractional tokens")
            << R"({"metadata":{"request_start_ns":1},"metrics":)"
               R"({"output_sequence_length":{"value":1.5,"unit":"tokens"}}})"
            << "line 2: \"output_sequence_length\" is 1.5, not a token count";
        QTest::newRow("no metadata") << R"({"metrics":{}})"
                                     << "line 2: no \"metadata\": not an AIPerf record";
        QTest::newRow("gaps not a list")
            << R"({"metadata":{"request_start_ns":1},"metrics":)"
               R"({"inter_chunk_latency":{"value":5,"unit":"ms"}}})"
            << "line 2: \"inter_chunk_latency\" is 5, not a list of gaps";
        QTest::newRow("not JSON") << "{\"metadata\": "
                                  << "line 2: not JSON: parse error";
    }
    void badRecordsNameTheirLine() {
        QFETCH(QString, line);
        QFETCH(QString, said);
        const std::string good =
            R"({"metadata":{"request_start_ns":1796313600000000000},"metrics":{}})";
        std::istringstream records(good + "\n" + line.toStdString() + "\n");
        try {
            AiperfImport::parse(test::fixture(QString(kNewer) + "profile_export_aiperf.json"),
                                &records);
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(said.toStdString()) != std::string::npos, e.what());
        }
    }

    // The command: a folder with its records, one with its summary only, a records file cut
    // off mid-line (nothing stored), a folder without an export; then compare.
    void importedRunsCompareWithAiperfsFigures() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        auto r = runTierscope(db, {"import", "aiperf", folder(kFull),
                                   folder("aiperf/aiperf-0.1-cut-records-assembled")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains("profile_export.jsonl line 5: not JSON: parse error") &&
                     r.out.contains("nothing imported"),
                 r.out.constData());
        QVERIFY(!QFile::exists(db));
        r = runTierscope(db, {"import", "aiperf", dir.path()});
        QCOMPARE(r.code, 6);
        QVERIFY2(r.out.contains("no profile_export_aiperf.json"), r.out.constData());

        r = runTierscope(db, {"import", "aiperf", folder(kFull), folder(kFull), "--experiment",
                              "kv", "--arm", "local"});
        QVERIFY2(r.code == 0, r.out.constData());
        QVERIFY2(r.out.contains("8 request rows"), r.out.constData());
        r = runTierscope(db, {"import", "aiperf", folder(kNewer) + "profile_export_aiperf.json",
                              folder(kNewer), "--experiment", "kv", "--arm", "nvmeof"});
        QVERIFY2(r.code == 0, r.out.constData());
        {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            QCOMPARE(store.sessions().front().label, std::string("aiperf Qwen/Qwen3-0.6B"));
            QCOMPARE(store.requestCount(1), std::int64_t(8));
        }
        r = runTierscope(db, {"compare", "arm:kv/local", "arm:kv/nvmeof", "--format", "json"});
        QVERIFY2(r.code == 0, r.out.constData());
        const auto report = Json::parse(r.out.toStdString());
        QCOMPARE(kpi(report, "ttft_p50")["runs_a"], (Json{47.25 / 1e3, 47.25 / 1e3}));
        QCOMPARE(kpi(report, "ttft_p50")["runs_b"], (Json{47.25 / 1e3, 47.25 / 1e3}));
        QCOMPARE(kpi(report, "e2el_p50")["runs_a"], (Json{101.5 / 1e3, 101.5 / 1e3}));
        QCOMPARE(kpi(report, "failure_rate")["a"].get<double>(), 12.5);
        QVERIFY(!kpi(report, "tpot_mean").is_null() && !kpi(report, "output_throughput").is_null());
    }

    // A benchmark AIPerf cancelled covers part of its run: the comparison is INVALID.
    void aCancelledBenchmarkFailsItsRun() {
        auto file = Json::parse(test::fixture(QString(kNewer) + "profile_export_aiperf.json"));
        file["was_cancelled"] = true;
        const auto run = AiperfImport::parse(file.dump(), nullptr);
        QCOMPARE(run.summary["validity"][0]["status"].get<std::string>(), std::string("fail"));
        QTemporaryDir dir;
        test::writeFileBytes(dir.filePath("c/profile_export_aiperf.json").toStdString(),
                             file.dump(2));
        const QString db = dir.filePath("w.db");
        QCOMPARE(runTierscope(db, {"import", "aiperf", folder(kNewer)}).code, 0);
        QCOMPARE(runTierscope(db, {"import", "aiperf", dir.filePath("c")}).code, 0);
        const auto r = runTierscope(db, {"compare", "run:1", "run:2"});
        QCOMPARE(r.code, 13);
        QVERIFY2(r.out.contains("aiperf_cancelled fail"), r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestAiperfImport)
#include "tst_aiperfimport.moc"
