#include "TestSupport.h"
#include "core/store/GuidellmImport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <cmath>

using namespace tierscope;

namespace {

using Json = nlohmann::json;

const char* const kReport = "guidellm/guidellm-0.7.3-sync-constant-assembled.json";

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

const Json& kpi(const Json& report, const char* name) {
    static const Json none;
    for (const auto& k : report["kpis"])
        if (k["kpi"] == name)
            return k;
    return none;
}

// The successful requests' distribution of a metric in the fixture.
Json successful(const Json& file, int benchmark, const char* metric) {
    return file["benchmarks"][benchmark]["metrics"][metric]["successful"];
}

} // namespace

class TestGuidellmImport : public QObject {
    Q_OBJECT
  private slots:
    // One run per benchmark (strategy), guidellm's own figures its KPIs: TTFT, ITL (every token
    // gap, weighted by tokens), request latency, the rates; failures of errored / answered.
    void eachBenchmarkIsARunWithGuidellmsFigures() {
        const auto file = Json::parse(test::fixture(kReport));
        const auto runs = GuidellmImport::parse(test::fixture(kReport));
        QCOMPARE(runs.size(), std::size_t(2));
        for (int b = 0; b < 2; ++b) {
            const Json& k = runs[b].summary["imported_kpis"];
            const Json ttft = successful(file, b, "time_to_first_token_ms");
            QCOMPARE(k["ttft_mean"].get<double>(), ttft["mean"].get<double>() / 1e3);
            QCOMPARE(k["ttft_p50"].get<double>(), ttft["percentiles"]["p50"].get<double>() / 1e3);
            QCOMPARE(k["ttft_p90"].get<double>(), ttft["percentiles"]["p90"].get<double>() / 1e3);
            QCOMPARE(k["ttft_p99"].get<double>(), ttft["percentiles"]["p99"].get<double>() / 1e3);
            QCOMPARE(k["itl_mean"].get<double>(),
                     successful(file, b, "inter_token_latency_ms")["mean"].get<double>() / 1e3);
            const Json latency = successful(file, b, "request_latency");
            QCOMPARE(k["e2el_p50"].get<double>(), latency["percentiles"]["p50"].get<double>());
            QCOMPARE(k["e2el_p99"].get<double>(), latency["percentiles"]["p99"].get<double>());
            QCOMPARE(k["output_throughput"].get<double>(),
                     successful(file, b, "output_tokens_per_second")["mean"].get<double>());
            QCOMPARE(k["request_throughput"].get<double>(),
                     successful(file, b, "requests_per_second")["mean"].get<double>());
            // guidellm's TPOT counts the TTFT in: not vLLM's, so no tpot_mean from the file.
            QVERIFY(!k.contains("tpot_mean"));
            // Its figures, kept exactly, less the request lists and the configuration.
            QCOMPARE(runs[b].summary["guidellm"]["metrics"], file["benchmarks"][b]["metrics"]);
            QVERIFY(!runs[b].summary["guidellm"].contains("requests"));
            QVERIFY(!runs[b].summary["guidellm"].contains("config"));
        }
        QCOMPARE(runs[0].summary["imported_kpis"]["ttft_p50"].get<double>(),
                 43.99991035461426 / 1e3);
        QCOMPARE(runs[0].name, std::string("synchronous"));
        QCOMPARE(runs[0].params["concurrency"].get<int>(), 1);
        QCOMPARE(runs[0].summary["imported_kpis"]["failure_rate"].get<double>(), 0.0);
        QCOMPARE(runs[1].name, std::string("constant@2.0"));
        QCOMPARE(runs[1].params["request_rate"].get<double>(), 2.0);
        QVERIFY(!runs[1].params.contains("concurrency")); // max_concurrency null
        QCOMPARE(runs[1].params["model"].get<std::string>(), std::string("Qwen/Qwen3-0.6B"));
        // One refused of nine answered or refused; the one cut off at the end is neither.
        QCOMPARE(runs[1].summary["imported_kpis"]["failure_rate"].get<double>(), 100.0 / 9);
        QCOMPARE(runs[1].summary["imported_kpis"]["requests_issued"].get<double>(), 9.0);
        QCOMPARE(*runs[1].startNs, std::llround(1796313701.7129996 * 1e9));
        QCOMPARE(*runs[1].endNs, std::llround(1796313706.2909997 * 1e9));
    }

    // The requests guidellm listed become rows, with a note where it listed a sample.
    void listedRequestsBecomeRows() {
        const auto runs = GuidellmImport::parse(test::fixture(kReport));
        QCOMPARE(runs[0].requests.size(), std::size_t(6));
        const auto& r = runs[1].requests;
        QCOMPARE(r.size(), std::size_t(8)); // 6 of 8 successful, 1 errored, 1 incomplete
        QCOMPARE(*r[0].ttftS, 49.99995231628418 / 1e3);
        QCOMPARE(*r[0].e2eS, 0.13299989700317383);
        QCOMPARE(*r[0].promptTokens, 550);
        QCOMPARE(*r[0].outputTokens, 16);
        QCOMPARE(r[0].sendNs, std::llround(1796313701.7129996 * 1e9));
        QVERIFY(r[0].ok());
        const auto errored = std::find_if(r.begin(), r.end(), [](const RequestRecord& x) {
            return x.error == "HTTPStatusError: 503 Service Unavailable";
        });
        QVERIFY(errored != r.end() && !errored->ok() && !errored->ttftS);
        QVERIFY(std::any_of(r.begin(), r.end(),
                            [](const auto& x) { return x.error.starts_with("incomplete"); }));
        const Json& sampled = runs[1].summary["requests_sampled"]["successful"];
        QCOMPARE(sampled["rows"].get<int>(), 6);
        QCOMPARE(sampled["total"].get<int>(), 8);
        QVERIFY(!runs[0].summary.contains("requests_sampled"));
    }

    // guidellm counts a request it did not time as 0 (`or 0.0`): such a distribution is no
    // latency, and no distribution at all (count 0) is none either.
    void zeroStandInsAreNotLatencies() {
        auto file = Json::parse(test::fixture(kReport));
        file["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]["min"] = 0.0;
        file["benchmarks"][0]["metrics"]["request_latency"]["successful"]["count"] = 0;
        const auto runs = GuidellmImport::parse(file.dump());
        const Json& k = runs[0].summary["imported_kpis"];
        for (const char* name : {"ttft_mean", "ttft_p50", "ttft_p99", "e2el_p50", "e2el_p99"})
            QVERIFY2(!k.contains(name), name);
        QVERIFY(k.contains("itl_mean"));
        QVERIFY(runs[0].summary["notes"][0].get<std::string>().starts_with(
            "time_to_first_token_ms: its minimum is 0"));
    }

    void malformedFilesSayWhatIsWrong_data() {
        QTest::addColumn<QString>("pointer"); // empty: the truncated fixture
        QTest::addColumn<QString>("value");   // empty: remove the member
        QTest::addColumn<QString>("said");
        QTest::newRow("truncated") << ""
                                   << ""
                                   << "not JSON: parse error at line 1, column 5001";
        QTest::newRow("before 0.4") << "/metadata"
                                    << ""
                                    << "no \"metadata\": a guidellm report before 0.4";
        QTest::newRow("schema 3") << "/metadata/version"
                                  << "3"
                                  << "guidellm report schema version 3; tierscope reads versions "
                                     "1 and 2";
        QTest::newRow("not a report") << "/benchmarks"
                                      << ""
                                      << "not a guidellm benchmarks report";
        QTest::newRow("no metrics") << "/benchmarks/1/metrics"
                                    << ""
                                    << "benchmark 2 has no \"metrics\"";
        QTest::newRow("count as text") << "/benchmarks/1/metrics/request_totals/errored"
                                       << "\"1\""
                                       << "\"request_totals\" \"errored\" is \"1\", not a count";
        QTest::newRow("percentile as text")
            << "/benchmarks/0/metrics/time_to_first_token_ms/successful/percentiles/p99"
            << "\"slow\""
            << "\"time_to_first_token_ms\" \"percentiles\" \"p99\" is \"slow\"";
        QTest::newRow("negative TTFT")
            << "/benchmarks/1/requests/successful/0/time_to_first_token_ms"
            << "-3"
            << "benchmark 2 successful request 0: "
               "\"time_to_first_token_ms\" is -3, not a figure";
        QTest::newRow("fractional tokens") << "/benchmarks/0/requests/successful/2/output_tokens"
                                           << "2.5"
                                           << "\"output_tokens\" is 2.5, not a token count";
    }
    void malformedFilesSayWhatIsWrong() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, said);
        std::string text = test::fixture("guidellm/guidellm-0.7.3-truncated.json");
        if (!pointer.isEmpty()) {
            auto file = Json::parse(test::fixture(kReport));
            const Json::json_pointer at(pointer.toStdString());
            if (value.isEmpty())
                file[at.parent_pointer()].erase(at.back());
            else
                file[at] = Json::parse(value.toStdString());
            text = file.dump();
        }
        try {
            GuidellmImport::parse(text);
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(said.toStdString()) != std::string::npos, e.what());
        }
    }

    // The command stores each benchmark as a run; runs of one strategy compare, runs of two
    // do not (synchronous is load@c1, constant load@rate2).
    void benchmarksOfOneStrategyCompare() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const QString report = QStringLiteral(TIERSCOPE_FIXTURES "/") + kReport;
        auto r = runTierscope(db, {"import", "guidellm", report, report});
        QVERIFY2(r.code == 0, r.out.constData());
        QVERIFY2(r.out.contains("\"constant@2.0\" as session 1, run 2 (8 request rows)"),
                 r.out.constData());
        {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            const auto runs = store.runsOfSession(store.sessions().front().id);
            QCOMPARE(runs.size(), std::size_t(4));
            QCOMPARE(runs[0].workload, std::string("guidellm"));
            QCOMPARE(store.requestCount(runs[1].id), std::int64_t(8));
        }
        r = runTierscope(db, {"compare", "run:1", "run:3", "--format", "json"});
        QVERIFY2(r.code == 0, r.out.constData());
        const auto file = Json::parse(test::fixture(kReport));
        const auto json = Json::parse(r.out.toStdString());
        const double p50 =
            successful(file, 0, "time_to_first_token_ms")["percentiles"]["p50"].get<double>() / 1e3;
        QCOMPARE(kpi(json, "ttft_p50")["runs_a"], (Json{p50}));
        QCOMPARE(kpi(json, "ttft_p50")["runs_b"], (Json{p50}));
        QVERIFY(!kpi(json, "tpot_mean").is_null()); // from the rows: TTFT and end to end
        r = runTierscope(db, {"compare", "run:1", "run:2"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains("compare one workload variant at a time"), r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestGuidellmImport)
#include "tst_guidellmimport.moc"
