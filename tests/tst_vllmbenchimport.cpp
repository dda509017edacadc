#include "TestSupport.h"
#include "core/Store.h"
#include "core/VllmBenchImport.h"

#include <QProcess>
#include <QTemporaryDir>

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

    void refusesOtherFiles() {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("[1,2]"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("{\"completed\": 3}"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, VllmBenchImport::parse("not json"));
    }
};

QTEST_GUILESS_MAIN(TestVllmBenchImport)
#include "tst_vllmbenchimport.moc"
