#include "TestSupport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <atomic>
#include <cstdlib>
#include <fcntl.h>
#include <memory>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

using namespace tierscope;

// `tierscope record` runs while this test reads a file with O_DIRECT; the recorded read
// bandwidth of the disk that holds the file must account for that traffic.
class TestRecordE2E : public QObject {
    Q_OBJECT
  private:
    // The whole disk under a file: /sys/dev/block/MAJ:MIN, or its parent for a partition.
    static QString diskOf(const QString& file) {
        struct stat st {};
        if (::stat(file.toUtf8().constData(), &st) != 0)
            return {};
        const QString dev =
            QString("/sys/dev/block/%1:%2").arg(major(st.st_dev)).arg(minor(st.st_dev));
        QFileInfo info(dev);
        if (!info.exists())
            return {};
        QString resolved = info.canonicalFilePath();
        if (QFile::exists(resolved + "/partition"))
            resolved = QFileInfo(resolved).path();
        return QFileInfo(resolved).fileName();
    }

    static void writeRandomFile(const QString& path, std::size_t bytes) {
        const int fd = ::open(path.toUtf8().constData(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
        QVERIFY(fd >= 0);
        std::vector<unsigned char> block(1 << 20);
        std::mt19937_64 rng(42);
        for (std::size_t done = 0; done < bytes; done += block.size()) {
            for (std::size_t i = 0; i < block.size(); i += 8) {
                const auto v = rng();
                std::memcpy(&block[i], &v, 8);
            }
            QCOMPARE(::write(fd, block.data(), block.size()), static_cast<ssize_t>(block.size()));
        }
        QCOMPARE(::fsync(fd), 0);
        ::close(fd);
    }

  private slots:
    void recordedBandwidthShowsDirectReads() {
        QTemporaryDir dir(QDir::currentPath() +
                          "/e2e-XXXXXX"); // the build tree sits on a real disk
        QVERIFY(dir.isValid());
        const QString data = dir.filePath("payload.bin");
        const std::size_t size = 256u << 20;
        writeRandomFile(data, size);
        if (QTest::currentTestFailed())
            return; // a full disk, say: the helper said why
        const QString disk = diskOf(data);
        if (disk.isEmpty())
            QSKIP("the build directory is not on a block device (tmpfs or network filesystem)");
        const int fd = ::open(data.toUtf8().constData(), O_RDONLY | O_DIRECT);
        if (fd < 0)
            QSKIP("this filesystem refuses O_DIRECT, so the reads would come from the page cache");

        QProcess rec;
        const QString db = dir.filePath("e2e.db");
        rec.start(TIERSCOPE_BINARY, {"--db", db, "record", "--duration", "5s", "--interval",
                                     "200ms", "--label", "e2e"});
        QVERIFY(rec.waitForStarted());
        QThread::msleep(1200); // let the recorder take its baseline

        void* raw = nullptr;
        QCOMPARE(posix_memalign(&raw, 4096, 1 << 20), 0);
        // Freed and closed on every way out, a failed check included.
        const std::unique_ptr<void, decltype(&std::free)> buffer(raw, &std::free);
        const std::unique_ptr<const int, void (*)(const int*)> closeOnExit(
            &fd, [](const int* f) { ::close(*f); });
        std::uint64_t bytesRead = 0;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 2500) {
            const ssize_t n =
                ::pread(fd, buffer.get(), 1 << 20, static_cast<off_t>(bytesRead % size));
            QVERIFY(n > 0);
            bytesRead += static_cast<std::uint64_t>(n);
        }
        QVERIFY(rec.waitForFinished(20000));
        QVERIFY2(rec.exitCode() == 0, rec.readAllStandardError().constData());
        QVERIFY(rec.readAllStandardOutput().contains(disk.toUtf8()));

        Store store(db.toStdString(), Store::Mode::ReadOnly);
        std::int64_t metric = 0;
        for (const auto& m : store.metrics(1))
            if (m.descriptor.path == "block/" + disk.toStdString() + "/read_bytes_per_s")
                metric = m.id;
        QVERIFY2(metric != 0, qPrintable("no read bandwidth recorded for " + disk));
        const auto samples = store.readRaw(metric, 0, INT64_MAX / 2);
        QVERIFY(samples.size() >= 15);
        // Integrate bandwidth over each sample's interval: bytes the kernel counted.
        double counted = 0, peak = 0;
        for (std::size_t i = 1; i < samples.size(); ++i) {
            counted +=
                samples[i].value * static_cast<double>(samples[i].tNs - samples[i - 1].tNs) / 1e9;
            peak = std::max(peak, samples[i].value);
        }
        qInfo("read %.1f MB with O_DIRECT from %s; recorded %.1f MB, peak %.1f MB/s",
              bytesRead / 1e6, qPrintable(disk), counted / 1e6, peak / 1e6);
        QVERIFY(counted >= 0.8 * static_cast<double>(bytesRead));
        QVERIFY(counted <=
                1.5 * static_cast<double>(bytesRead) + 200e6);     // other tenants of the disk
        QVERIFY(peak >= static_cast<double>(bytesRead) / 2.5 / 2); // sustained for 2.5 s
    }

    // The workspace's filesystem fills up mid-recording (RLIMIT_FSIZE stands in for a full
    // disk): the recorder stops with a clear error and exit 5, and what it committed stays.
    void aFullDiskStopsTheRecordingCleanly() {
        QTemporaryDir dir;
        const QString db = dir.filePath("full.db");
        QProcess p;
        p.setChildProcessModifier([] {
            rlimit capped{};
            ::getrlimit(RLIMIT_FSIZE, &capped);
            capped.rlim_cur = 200 * 1024;
            ::setrlimit(RLIMIT_FSIZE, &capped);
        });
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "record", "--interval", "100ms", "--duration", "60s", "-q"});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit); // not killed by SIGXFSZ
        QCOMPARE(p.exitCode(), 5);
        QVERIFY2(err.contains("recording stopped early") &&
                     err.contains("committed before the error are kept in session 1"),
                 err.constData());
        tierscope::Store store(db.toStdString(), tierscope::Store::Mode::ReadOnly);
        auto check = store.db().prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        QCOMPARE(check.columnText(0), std::string("ok"));
        QVERIFY(store.sampleCount(1) > 0);
    }
};

QTEST_GUILESS_MAIN(TestRecordE2E)
#include "tst_recorde2e.moc"
