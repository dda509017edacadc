#include "TestSupport.h"
#include "core/store/Store.h"
#include "core/util/WallClock.h"

#include <QProcess>
#include <QTemporaryDir>
#include <atomic>
#include <csignal>
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
        // Stopped by Ctrl-C once it has recorded past the reads, however slowly it started.
        rec.start(TIERSCOPE_BINARY, {"--db", db, "record", "--duration", "300s", "--interval",
                                     "200ms", "--label", "e2e"});
        QVERIFY(rec.waitForStarted());
        const std::string path = "block/" + disk.toStdString() + "/read_bytes_per_s";
        // The read bandwidth samples stored so far (the recorder commits every 250 ms).
        auto stored = [&]() -> std::vector<Sample> {
            if (!QFile::exists(db))
                return {};
            try {
                Store store(db.toStdString(), Store::Mode::ReadOnly);
                for (const auto& m : store.metrics(1))
                    if (m.descriptor.path == path)
                        return store.readRaw(m.id, 0, INT64_MAX / 2);
            } catch (const std::exception&) { // not created yet
            }
            return {};
        };
        // A rate needs two counter readings: the baseline is in once two samples are.
        QTRY_VERIFY_WITH_TIMEOUT(stored().size() >= 2, 120000);

        void* raw = nullptr;
        QCOMPARE(posix_memalign(&raw, 4096, 1 << 20), 0);
        // Freed and closed on every way out, a failed check included.
        const std::unique_ptr<void, decltype(&std::free)> buffer(raw, &std::free);
        const std::unique_ptr<const int, void (*)(const int*)> closeOnExit(
            &fd, [](const int* f) { ::close(*f); });
        WallClock clock;
        const std::int64_t readFrom = clock.nowNs();
        std::uint64_t bytesRead = 0;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 2500) {
            const ssize_t n =
                ::pread(fd, buffer.get(), 1 << 20, static_cast<off_t>(bytesRead % size));
            QVERIFY(n > 0);
            bytesRead += static_cast<std::uint64_t>(n);
        }
        const std::int64_t readTo = clock.nowNs();
        // Every read is counted once a sample taken after the last one is stored.
        QTRY_VERIFY_WITH_TIMEOUT(!stored().empty() && stored().back().tNs > readTo, 120000);
        ::kill(static_cast<pid_t>(rec.processId()), SIGINT);
        QVERIFY(rec.waitForFinished(60000));
        QVERIFY2(rec.exitCode() == 0, rec.readAllStandardError().constData());
        QVERIFY(rec.readAllStandardOutput().contains(disk.toUtf8()));

        const auto samples = stored();
        // Integrate bandwidth over each sample's interval, for the intervals that overlap the
        // reads: bytes the kernel counted while this test read.
        double counted = 0, peak = 0, covered = 0;
        for (std::size_t i = 1; i < samples.size(); ++i) {
            if (samples[i].tNs <= readFrom || samples[i - 1].tNs >= readTo)
                continue;
            const double dt = static_cast<double>(samples[i].tNs - samples[i - 1].tNs) / 1e9;
            counted += samples[i].value * dt;
            covered += dt;
            peak = std::max(peak, samples[i].value);
        }
        qInfo("read %.1f MB with O_DIRECT from %s; recorded %.1f MB over %.2f s, peak %.1f MB/s",
              bytesRead / 1e6, qPrintable(disk), counted / 1e6, covered, peak / 1e6);
        QVERIFY(covered > 0);
        QVERIFY(counted >= 0.8 * static_cast<double>(bytesRead));
        QVERIFY(counted <=
                1.5 * static_cast<double>(bytesRead) + 200e6); // other tenants of the disk
        // Sustained over the reads: the highest sample is at least half their mean rate.
        QVERIFY(peak >= static_cast<double>(bytesRead) /
                            (static_cast<double>(readTo - readFrom) / 1e9) / 2);
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
