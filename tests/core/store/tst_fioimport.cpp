#include "TestSupport.h"
#include "core/store/FioImport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace tierscope;

namespace {

using Json = nlohmann::json;

struct Result {
    int code = -1;
    QByteArray out;
};

// `tierscope --db DB ARGS`: its exit code and its output, stdout then stderr.
Result runTierscope(const QString& db, const QStringList& args) {
    QProcess p;
    p.start(TIERSCOPE_BINARY, QStringList{"--db", db} + args);
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
}

QString fixture(const char* name) {
    return QStringLiteral(TIERSCOPE_FIXTURES "/fio/") + name;
}

const Json& kpi(const Json& report, const char* name) {
    static const Json none;
    for (const auto& k : report["kpis"])
        if (k["kpi"] == name)
            return k;
    return none;
}

} // namespace

class TestFioImport : public QObject {
    Q_OBJECT
  private slots:
    // fio 3.33's own output (Debian's fio on the build VM): every figure as fio wrote it, in
    // tierscope's storage fields and KPIs.
    void threeJobsImportWithFiosFigures() {
        const auto runs = FioImport::parse(test::fixture("fio/fio-3.33-three-jobs.json"));
        QCOMPARE(runs.size(), std::size_t(3));
        const auto& seq = runs[0];
        QCOMPARE(seq.workload, std::string("storage/fio"));
        QCOMPARE(seq.name, std::string("seq-read"));
        const Json& s = seq.summary;
        QCOMPARE(s["read_gb_per_s"].get<double>(), 2396745142 / 1e9); // bw_bytes
        QCOMPARE(s["bytes_read"].get<std::uint64_t>(), std::uint64_t(33554432));
        QCOMPARE(s["bytes_written"].get<std::uint64_t>(), std::uint64_t(0));
        QCOMPARE(s["seconds"].get<double>(), 0.013); // job_runtime 13 ms
        QVERIFY(s["page_cache_bypassed"].get<bool>());
        const Json& k = s["imported_kpis"];
        QCOMPARE(k["read_iops"].get<double>(), 2285.714286);
        QCOMPARE(k["read_clat_p50"].get<double>(), 374784 / 1e9); // "50.000000"
        QCOMPARE(k["read_clat_p99"].get<double>(), 1187840 / 1e9);
        // It wrote nothing: no write rate, no write latency, not zeros.
        QVERIFY(!s.contains("write_gb_per_s"));
        QVERIFY(!k.contains("write_iops") && !k.contains("write_clat_p50"));
        const auto file = Json::parse(test::fixture("fio/fio-3.33-three-jobs.json"));
        QCOMPARE(s["fio_job"], file["jobs"][0]); // fio's job object, verbatim
        QCOMPARE(s["fio_version"].get<std::string>(), std::string("fio-3.33"));
        const Json& p = seq.params;
        QCOMPARE(p["variant"].get<std::string>(), std::string("storage/model-load"));
        QCOMPARE(p["rw"].get<std::string>(), std::string("read"));
        QCOMPARE(p["block_size"].get<std::uint64_t>(), std::uint64_t(1) << 20);
        QCOMPARE(p["global_options"]["direct"].get<std::string>(), std::string("1"));
        QCOMPARE(p["job_options"]["ioengine"].get<std::string>(), std::string("psync"));
        QCOMPARE(*seq.endNs, std::int64_t(1796313420131) * 1'000'000); // timestamp_ms
        QCOMPARE(*seq.startNs, *seq.endNs - 13'000'000);

        const auto& rand = runs[1];
        QCOMPARE(rand.params["variant"].get<std::string>(),
                 std::string("storage/fio/randread@bs4096"));
        QCOMPARE(rand.summary["read_gb_per_s"].get<double>(), 190650181 / 1e9);
        QCOMPARE(rand.summary["imported_kpis"]["read_iops"].get<double>(), 46545.454545);
        QCOMPARE(rand.summary["imported_kpis"]["read_clat_p50"].get<double>(), 86528 / 1e9);
        QCOMPARE(rand.summary["imported_kpis"]["read_clat_p99"].get<double>(), 1318912 / 1e9);

        const auto& write = runs[2];
        QCOMPARE(write.params["variant"].get<std::string>(),
                 std::string("storage/fio/write@bs1048576"));
        QCOMPARE(write.summary["write_gb_per_s"].get<double>(), 798915047 / 1e9);
        QCOMPARE(write.summary["bytes_written"].get<std::uint64_t>(), std::uint64_t(33554432));
        QCOMPARE(write.summary["imported_kpis"]["write_iops"].get<double>(), 761.904762);
        QCOMPARE(write.summary["imported_kpis"]["write_clat_p50"].get<double>(), 659456 / 1e9);
        QCOMPARE(write.summary["imported_kpis"]["write_clat_p99"].get<double>(), 1269760 / 1e9);
        QVERIFY(!write.summary.contains("read_gb_per_s"));
        QVERIFY(!write.summary["imported_kpis"].contains("read_iops"));
        for (const auto& r : runs)
            QVERIFY(!r.summary.contains("validity")); // error 0
    }

    // fio's messages before its JSON (fio issue #731) are kept; a job fio ended with an error
    // fails the run's validity, so a comparison holding it is INVALID.
    void aJobFioEndedWithAnErrorFailsItsRun() {
        const auto runs = FioImport::parse(test::fixture("fio/fio-3.33-io-error-assembled.json"));
        QCOMPARE(runs.size(), std::size_t(1));
        const Json& s = runs[0].summary;
        QCOMPARE(s["fio_messages"].size(), std::size_t(2));
        QVERIFY(s["fio_messages"][1].get<std::string>().starts_with("fio: pid=48213, err=5"));
        QCOMPARE(s["validity"][0]["status"].get<std::string>(), std::string("fail"));
        const std::string detail = s["validity"][0]["detail"];
        QVERIFY2(detail.find("with error 5") != std::string::npos &&
                     detail.find("Input/output error") != std::string::npos,
                 detail.c_str());
        QCOMPARE(s["read_gb_per_s"].get<double>(), 1525201454 / 1e9);

        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        for (const char* name : {"fio-3.33-io-error-assembled.json", "fio-3.33-seq-read-1.json"}) {
            const auto r = runTierscope(db, {"import", "fio", fixture(name)});
            QVERIFY2(r.code == 0, r.out.constData());
        }
        const auto r = runTierscope(db, {"compare", "run:1", "run:2"});
        QCOMPARE(r.code, 13); // INVALID
        QVERIFY2(r.out.contains("fio_error fail"), r.out.constData());
    }

    // `fio --client`: one run per host's job; "All clients", fio's sum of them, is not one.
    void clientModeImportsEachHostsJob() {
        const auto runs = FioImport::parse(test::fixture("fio/fio-3.33-client-assembled.json"));
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[0].params["hostname"].get<std::string>(), std::string("node1"));
        QCOMPARE(runs[1].params["hostname"].get<std::string>(), std::string("node2"));
        QCOMPARE(runs[1].summary["read_gb_per_s"].get<double>(), 1917396114 / 1e9);
        QCOMPARE(*runs[0].endNs, std::int64_t(1796313420) * 1'000'000'000); // seconds only
    }

    // Without fio's clat percentiles (clat_percentiles=0) the job has no latency KPI, not 0.
    void absentPercentilesStayAbsent() {
        auto file = Json::parse(test::fixture("fio/fio-3.33-seq-read-1.json"));
        file["jobs"][0]["read"]["clat_ns"].erase("percentile");
        const auto runs = FioImport::parse(file.dump());
        const Json& k = runs[0].summary["imported_kpis"];
        QVERIFY(!k.contains("read_clat_p50") && !k.contains("read_clat_p99"));
        QCOMPARE(k["read_iops"].get<double>(), 1882.352941);
        // A percentile list without 99 (percentile_list=50:90) has a p50 and no p99.
        file = Json::parse(test::fixture("fio/fio-3.33-seq-read-1.json"));
        file["jobs"][0]["read"]["clat_ns"]["percentile"] = {{"50.000000", 505856},
                                                            {"90.000000", 700000}};
        const auto listed = FioImport::parse(file.dump());
        QCOMPARE(listed[0].summary["imported_kpis"]["read_clat_p50"].get<double>(), 505856 / 1e9);
        QVERIFY(!listed[0].summary["imported_kpis"].contains("read_clat_p99"));
    }

    void malformedFilesSayWhatIsWrong_data() {
        QTest::addColumn<QString>("pointer"); // empty: the truncated fixture as it is
        QTest::addColumn<QString>("value");   // empty: remove the member
        QTest::addColumn<QString>("said");
        QTest::newRow("truncated") << ""
                                   << ""
                                   << "not JSON: parse error at line 97, column 11";
        QTest::newRow("bandwidth as text") << "/jobs/0/read/bw_bytes"
                                           << "\"fast\""
                                           << "\"read\" \"bw_bytes\" is \"fast\", not a count";
        QTest::newRow("edited bandwidth")
            << "/jobs/0/read/bw_bytes"
            << "123"
            << "\"bw_bytes\" is 123, but fio writes 1000 x io_bytes / runtime = 2396745142";
        QTest::newRow("edited iops") << "/jobs/0/read/iops"
                                     << "3000.5"
                                     << "\"iops\" is 3000.5, but fio writes 1000 x total_ios";
        QTest::newRow("negative latency") << "/jobs/1/read/clat_ns/percentile/99.000000"
                                          << "-5"
                                          << "\"percentile\" \"99.000000\" is -5, not a figure";
        QTest::newRow("no io_bytes") << "/jobs/2/write/io_bytes"
                                     << ""
                                     << "job 3 (\"seq-write\") \"write\" has no \"io_bytes\"";
        QTest::newRow("no jobs") << "/jobs"
                                 << ""
                                 << "not fio's JSON output: no \"jobs\" list";
        QTest::newRow("no job") << "/jobs"
                                << "[]"
                                << "no job in the file";
        QTest::newRow("not fio") << "/fio version"
                                 << ""
                                 << "not fio's JSON output: no \"fio version\"";
        QTest::newRow("fio 2") << "/fio version"
                               << "\"fio-2.2.10\""
                               << "fio-2.2.10 output: tierscope reads fio 3.x's";
        QTest::newRow("no jobname") << "/jobs/1/jobname"
                                    << "null"
                                    << "job 2 has no \"jobname\"";
        QTest::newRow("option as a number") << "/jobs/0/job options/bs"
                                            << "4"
                                            << "\"job options\" \"bs\" is 4, not fio's text";
        QTest::newRow("stamp after 2200") << "/timestamp_ms"
                                          << "99999999999999999"
                                          << "\"timestamp_ms\" is 99999999999999999, after";
    }
    void malformedFilesSayWhatIsWrong() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, said);
        std::string text = test::fixture("fio/fio-3.33-truncated.json");
        if (!pointer.isEmpty()) {
            auto file = Json::parse(test::fixture("fio/fio-3.33-three-jobs.json"));
            const Json::json_pointer at(pointer.toStdString());
            if (value.isEmpty())
                file[at.parent_pointer()].erase(at.back());
            else
                file[at] = Json::parse(value.toStdString());
            text = file.dump(2);
        }
        try {
            FioImport::parse(text);
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find(said.toStdString()) != std::string::npos, e.what());
        }
        // The command says it with the file's name, and stores nothing, not even the good file
        // named before it.
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        test::writeFileBytes(bad.toStdString(), text);
        const QString db = dir.filePath("w.db");
        const auto r =
            runTierscope(db, {"import", "fio", fixture("fio-3.33-seq-read-1.json"), bad});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.out.contains(bad.toUtf8() + ": ") && r.out.contains(said.toUtf8()) &&
                     r.out.contains("nothing imported"),
                 r.out.constData());
        QVERIFY(!QFile::exists(db));
    }

    void sizesAndSwitchesAsFioReadsThem() {
        QCOMPARE(FioImport::sizeBytes("4096", 1024), std::optional<std::uint64_t>(4096));
        QCOMPARE(FioImport::sizeBytes("4k", 1024), std::optional<std::uint64_t>(4096));
        QCOMPARE(FioImport::sizeBytes("1M", 1024), std::optional<std::uint64_t>(1 << 20));
        QCOMPARE(FioImport::sizeBytes("128kb", 1024), std::optional<std::uint64_t>(131072));
        // parse.c: under fio's default kb_base=1024 "KiB" is the other base, and the reverse.
        QCOMPARE(FioImport::sizeBytes("4KiB", 1024), std::optional<std::uint64_t>(4000));
        QCOMPARE(FioImport::sizeBytes("4k", 1000), std::optional<std::uint64_t>(4000));
        QCOMPARE(FioImport::sizeBytes("4KiB", 1000), std::optional<std::uint64_t>(4096));
        QVERIFY(!FioImport::sizeBytes("4k,64k", 1024)); // read and write sizes
        QVERIFY(!FioImport::sizeBytes("4k-64k", 1024)); // a range
        QVERIFY(!FioImport::sizeBytes("big", 1024));
        QVERIFY(!FioImport::sizeBytes("99999999999999999999", 1024));
        QVERIFY(FioImport::truthy("1") && FioImport::truthy("0x1"));
        QVERIFY(!FioImport::truthy("0") && !FioImport::truthy(""));
        QVERIFY(!FioImport::truthy("true")); // check_int reads numbers only
    }

    void variantsSayWhatAJobComparesWith() {
        QCOMPARE(FioImport::variant("read", "1m", true, 1024), std::string("storage/model-load"));
        QCOMPARE(FioImport::variant("read", "1m", false, 1024),
                 std::string("storage/fio/read@bs1048576@buffered"));
        QCOMPARE(FioImport::variant("randread", "", true, 1024),
                 std::string("storage/fio/randread@bs4096")); // fio's default bs
        QCOMPARE(FioImport::variant("randrw", "4k,64k", true, 1024),
                 std::string("storage/fio/randrw@bs4k,64k"));
    }

    // Two imported fio runs a side: compare gives fio's figures as the runs' KPIs, and the
    // interval over them.
    void importedFioRunsCompare() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        for (const auto& [arm, files] :
             {std::pair{"a", QStringList{"fio-3.33-seq-read-1.json", "fio-3.33-seq-read-2.json"}},
              {"b", QStringList{"fio-3.33-seq-read-3.json", "fio-3.33-seq-read-4.json"}}}) {
            QStringList args{"import", "fio"};
            for (const auto& f : files)
                args << QStringLiteral(TIERSCOPE_FIXTURES "/fio/") + f;
            const auto r =
                runTierscope(db, args + QStringList{"--experiment", "nvme", "--arm", arm});
            QVERIFY2(r.code == 0, r.out.constData());
            QVERIFY2(r.out.contains("compares as storage/model-load"), r.out.constData());
        }
        const auto r =
            runTierscope(db, {"compare", "arm:nvme/a", "arm:nvme/b", "--format", "json"});
        QVERIFY2(r.code == 0, r.out.constData());
        const auto report = Json::parse(r.out.toStdString());
        QCOMPARE(kpi(report, "read_gb_per_s")["runs_a"],
                 (Json{1973790117 / 1e9, 1917396114 / 1e9}));
        QCOMPARE(kpi(report, "read_gb_per_s")["runs_b"],
                 (Json{1525201454 / 1e9, 1973790117 / 1e9}));
        QCOMPARE(kpi(report, "read_iops")["runs_a"], (Json{1882.352941, 1828.571429}));
        QCOMPARE(kpi(report, "read_clat_p50")["runs_b"], (Json{552960 / 1e9, 493568 / 1e9}));
        QCOMPARE(kpi(report, "read_clat_p99")["runs_a"], (Json{1482752 / 1e9, 1318912 / 1e9}));
        QCOMPARE(kpi(report, "read_gb_per_s")["n_a"].get<int>(), 2);
        QCOMPARE(kpi(report, "read_gb_per_s")["ci95_ratio"].size(),
                 std::size_t(2));                          // runs' interval
        QVERIFY(kpi(report, "write_gb_per_s").is_null());  // nothing written: no row
        QVERIFY(kpi(report, "model_load_time").is_null()); // fio read no model
    }

    // The real fio from Debian: a sequential O_DIRECT read of a file in a temporary folder,
    // imported, then compared with tierscope's own model-load of the same folder.
    void realFioComparesWithTierscopesModelLoad() {
        QTemporaryDir dir(QDir::currentPath() + "/fio-XXXXXX"); // the build tree: O_DIRECT works
        QVERIFY(dir.isValid());
        const QString db = dir.filePath("w.db"), data = dir.filePath("data");
        QVERIFY(QDir().mkpath(data));
        auto r = runTierscope(db, {"storage", "prepare", "model-load", "--path", data, "--size",
                                   "8MiB", "--files", "2", "--quiet"});
        QVERIFY2(r.code == 0, r.out.constData());
        r = runTierscope(db, {"storage", "run", "model-load", "--path", data, "--quiet"});
        QVERIFY2(r.code == 0, r.out.constData());
        const QString result = dir.filePath("fio.json");
        QProcess fio;
        fio.start("fio", {"--name=seq-read", "--directory=" + dir.path(), "--size=8M", "--bs=1M",
                          "--rw=read", "--direct=1", "--ioengine=psync", "--output-format=json",
                          "--output=" + result});
        if (!fio.waitForStarted())
            QFAIL("fio is not installed (scripts/install-deps.sh installs it)");
        QVERIFY(fio.waitForFinished(60000));
        QVERIFY2(fio.exitCode() == 0, fio.readAllStandardError().constData());
        r = runTierscope(db, {"import", "fio", result});
        QVERIFY2(r.code == 0, r.out.constData());
        QVERIFY2(
            r.out.contains("job \"seq-read\" as session 2, run 2 (compares as storage/model-load)"),
            r.out.constData());
        QFile f(result);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto written = Json::parse(f.readAll().toStdString())["jobs"][0]["read"];
        QCOMPARE(written["io_bytes"].get<std::uint64_t>(), std::uint64_t(8) << 20);
        {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            const auto runs = store.runsOfSession(store.sessions().back().id);
            QCOMPARE(runs.size(), std::size_t(1));
            QCOMPARE(runs[0].workload, std::string("storage/fio"));
            QCOMPARE(runs[0].status, std::string("imported"));
            const auto s = Json::parse(runs[0].summaryJson);
            QCOMPARE(s["read_gb_per_s"].get<double>(), written["bw_bytes"].get<double>() / 1e9);
            QCOMPARE(s["bytes_read"].get<std::uint64_t>(), std::uint64_t(8) << 20);
            QCOMPARE(s["imported_kpis"]["read_iops"].get<double>(), written["iops"].get<double>());
        }
        // run 1 is tierscope's model-load, run 2 fio's job: one variant, one comparison.
        r = runTierscope(db, {"compare", "run:1", "run:2", "--format", "json"});
        QVERIFY2(r.code == 0, r.out.constData());
        const auto report = Json::parse(r.out.toStdString());
        QCOMPARE(kpi(report, "read_gb_per_s")["runs_b"],
                 (Json{written["bw_bytes"].get<double>() / 1e9}));
        QCOMPARE(kpi(report, "read_gb_per_s")["runs_a"].size(), std::size_t(1));
        QVERIFY(kpi(report, "model_load_time").is_null()); // only tierscope's side has one
    }
};

QTEST_GUILESS_MAIN(TestFioImport)
#include "tst_fioimport.moc"
