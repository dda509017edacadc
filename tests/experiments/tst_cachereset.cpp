#include "TestSupport.h"
#include "experiments/CacheReset.h"
#include "simulator/EngineSimulator.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace tierscope;

namespace {

// How many of the file's pages are in the page cache (mincore on a fresh mapping, which
// faults nothing in). -1 when it cannot tell.
long residentPages(const QString& path) {
    const int fd = ::open(path.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const off_t size = ::lseek(fd, 0, SEEK_END);
    void* map = size > 0
                    ? ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0)
                    : MAP_FAILED;
    ::close(fd);
    if (map == MAP_FAILED)
        return -1;
    const long page = ::sysconf(_SC_PAGESIZE);
    std::vector<unsigned char> in((static_cast<std::size_t>(size) + page - 1) / page);
    long resident = -1;
    if (::mincore(map, static_cast<std::size_t>(size), in.data()) == 0) {
        resident = 0;
        for (unsigned char v : in)
            resident += v & 1;
    }
    ::munmap(map, static_cast<std::size_t>(size));
    return resident;
}

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

    // The real one, where it can run (root, as CI is): a file just read is in the page cache,
    // and after the step it is not.
    void dropCachesEmptiesThePageCache() {
        if (::geteuid() != 0 || ::access("/proc/sys/vm/drop_caches", W_OK) != 0)
            QSKIP("writing /proc/sys/vm/drop_caches needs root");
        // In the build tree, on a disk: tmpfs pages (a tmpfs /tmp) are never dropped.
        QTemporaryDir dir(QDir::currentPath() + "/cache-XXXXXX");
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("cached.bin");
        test::writeFile(file, QByteArray(8 << 20, 'k'));
        const int fd = ::open(file.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QCOMPARE(::fsync(fd), 0); // clean pages: dirty ones stay until written back
        char buffer[65536];
        while (::read(fd, buffer, sizeof buffer) > 0) {
        }
        ::close(fd);
        const long pages = (8 << 20) / ::sysconf(_SC_PAGESIZE);
        const long before = residentPages(file);
        QVERIFY2(before > pages / 2, qPrintable(QString::number(before)));
        const auto o = CacheReset::dropCaches("/proc/sys/vm/drop_caches");
        QVERIFY2(o.ok, o.detail.c_str());
        const long after = residentPages(file);
        QVERIFY2(after >= 0 && after < pages / 10,
                 qPrintable(QString("%1 of %2 pages still cached").arg(after).arg(pages)));
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
