#include "TestSupport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace tierscope;

// The plan goes into the workspace with the experiment's session (for the report), and
// workspaces travel (pull, snapshot, a copied file): its credentials must not go with it, nor
// into the report printed from it. The arms still ran with them.
class TestStoredPlan : public QObject {
    Q_OBJECT
  private slots:
    void theStoredPlanAndItsReportHoldNoSecret() {
        QTemporaryDir dir;
        const QString seen = dir.filePath("seen");
        const QString plan = dir.filePath("secret.toml");
        test::writeFile(plan, QString(R"(name = "secret"
repetitions = 1
warmup = 0

[[arm]]
label = "a"
path = "%1/a"
setup = "mkdir -p {path}; echo $hf_token $DB_PASS > %2"
env = { hf_token = "hf_live0123456789abcdef", DB_PASS = "hunter2-db", MODE = "fast" }

[[arm]]
label = "b"
path = "%1/b"
setup = "mkdir -p {path}"
engine_url = "%3"

[[workload]]
kind = "model-load"
size = "1MiB"
files = 1
)")
                                  .arg(dir.path(), seen,
                                       "http://admin:pw-url-77@127.0.0.1:9/v1?api_key=key-in-query")
                                  .toUtf8());
        const QString db = dir.filePath("w.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", plan, "--format", "html"});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray report = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QFile f(seen);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().trimmed(), QByteArray("hf_live0123456789abcdef hunter2-db"));

        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto stored = store.eventText(store.sessions().front().id, "experiment-plan");
        QVERIFY(stored);
        for (const char* secret :
             {"hf_live0123456789abcdef", "hunter2-db", "pw-url-77", "key-in-query"}) {
            QVERIFY2(stored->find(secret) == std::string::npos, stored->c_str());
            QVERIFY2(!report.contains(secret), secret);
        }
        QVERIFY2(stored->find("MODE = \"fast\"") != std::string::npos, stored->c_str());
        QVERIFY2(report.contains("&lt;redacted&gt;"), report.left(2000).constData());
    }
};

QTEST_GUILESS_MAIN(TestStoredPlan)
#include "tst_storedplan.moc"
