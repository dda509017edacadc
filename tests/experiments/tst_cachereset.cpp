#include "TestSupport.h"
#include "simulator/EngineSimulator.h"
#include "experiments/CacheReset.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>

using namespace tierscope;

namespace {

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)");
}

} // namespace

// The cache-control steps between runs, each with its outcome.
class TestCacheReset : public QObject {
    Q_OBJECT
  private slots:
    void resetsThePrefixCacheOverHttp() {
        EngineSimulator sim(EngineSimulator::Options{});
        const std::string url = "http://127.0.0.1:" + std::to_string(sim.start()) + "/v1";
        const auto o = CacheReset::resetPrefixCache(url);
        QVERIFY2(o.ok, o.detail.c_str());
        QCOMPARE(o.step, std::string("reset_prefix_cache"));
        QVERIFY(sim.metricsText().find("tierscope_sim:prefix_cache_resets_total{engine=\"0\","
                                       "model_name=\"tierscope-sim\"} 1") != std::string::npos);
        sim.stop();
        const auto gone = CacheReset::resetPrefixCache(url); // nothing listens now
        QVERIFY(!gone.ok);
        QVERIFY(gone.detail.find("/reset_prefix_cache") != std::string::npos);
    }

    void aResetCommandRunsWithItsEnvironmentAndFailsWithItsOutput() {
        QTemporaryDir dir;
        const std::string marker = dir.filePath("reset-ran").toStdString();
        const auto ok = CacheReset::command("echo $WHAT > " + marker, {{"WHAT", "cpu-tier"}},
                                            std::chrono::seconds(20));
        QVERIFY2(ok.ok, ok.detail.c_str());
        QCOMPARE(readFile(QString::fromStdString(marker)).trimmed(), QByteArray("cpu-tier"));
        const auto bad =
            CacheReset::command("echo cannot clear; exit 3", {}, std::chrono::seconds(20));
        QVERIFY(!bad.ok);
        QCOMPARE(bad.describe(), std::string("reset failed: exit 3: cannot clear\n"));
    }

    // drop_caches itself needs root and empties the machine's page cache: tested on a file.
    void dropCachesWritesThreeOrSaysWhyNot() {
        QTemporaryDir dir;
        const QString file = dir.filePath("drop_caches");
        test::writeFile(file, "");
        const auto ok = CacheReset::dropCaches(file.toStdString());
        QVERIFY2(ok.ok, ok.detail.c_str());
        QCOMPARE(readFile(file), QByteArray("3\n"));
        const auto missing = CacheReset::dropCaches(dir.filePath("no/such/file").toStdString());
        QVERIFY(!missing.ok);
        QVERIFY(missing.detail.find("No such file") != std::string::npos);
        const std::string denied = CacheReset::dropCachesError("/proc/sys/vm/drop_caches", EACCES);
        QVERIFY(denied.find("needs root") != std::string::npos);
        QVERIFY(denied.find("Permission denied") != std::string::npos);
    }

    void stepsRunInOrderAndAllAreReported() {
        QTemporaryDir dir;
        CacheReset::Steps steps;
        steps.resetPrefixCache = true;
        steps.engineUrl = "http://127.0.0.1:1"; // refused
        steps.command = "true";
        steps.dropCaches = true;
        steps.dropCachesPath = dir.filePath("missing/drop_caches").toStdString();
        const auto done = CacheReset::run(steps);
        QCOMPARE(done.size(), std::size_t(3));
        QCOMPARE(done[0].step, std::string("reset_prefix_cache"));
        QCOMPARE(done[1].step, std::string("reset"));
        QCOMPARE(done[2].step, std::string("drop_caches"));
        QVERIFY(!done[0].ok && done[1].ok && !done[2].ok);
        QVERIFY(!CacheReset::allOk(done));
        QCOMPARE(done[1].toJson()["ok"].get<bool>(), true);
    }
};

QTEST_GUILESS_MAIN(TestCacheReset)
#include "tst_cachereset.moc"
