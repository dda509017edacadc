#include "TestSupport.h"
#include "experiments/EvidenceSnapshot.h"

#include <QTemporaryDir>
#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace tierscope;

// The numbers the validity checks read: the device under a path, from a captured /proc.
class TestEvidenceSnapshot : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    // A /proc whose diskstats names the device of m_dir `head` (its reads `headSectors`), with
    // two hidden multipath paths of it and an unrelated disk.
    QString proc(const QString& name, const QString& head, int headSectors, int pathSectors) {
        struct stat st {};
        if (::stat(m_dir.path().toLocal8Bit().constData(), &st) != 0)
            qFatal("cannot stat the test directory");
        const QString line = "%1 %2 %3 10 0 %4 5 0 0 0 0 0 0 0\n";
        const QString text =
            line.arg(major(st.st_dev)).arg(minor(st.st_dev)).arg(head).arg(headSectors) +
            line.arg(259).arg(9001).arg("nvme0c0n1").arg(pathSectors) +
            line.arg(259).arg(9002).arg("nvme0c1n1").arg(pathSectors) +
            line.arg(8).arg(0).arg("sda").arg(999999);
        const QString root = m_dir.filePath(name);
        test::writeFile(root + "/diskstats", text.toUtf8());
        test::writeFile(root + "/meminfo", "MemTotal: 1000 kB\nCached:  2048 kB\n");
        return root;
    }
    EvidenceSnapshot take(const QString& root) {
        return EvidenceSnapshot::take(m_dir.path().toStdString(), {}, {root.toStdString(), "/sys"});
    }

  private slots:
    void theDeviceUnderThePathAndThePageCache() {
        const auto s = take(proc("a", "vdz", 8, 0));
        QCOMPARE(s.device.value_or("none"), std::string("vdz"));
        QCOMPARE(s.deviceReadBytes.value_or(0), std::uint64_t(8 * 512));
        QCOMPARE(s.pageCacheBytes.value_or(0), std::uint64_t(2048 * 1024));
        QVERIFY(!s.pathsReadBytes); // vdz has no multipath paths
        const auto later = take(proc("b", "vdz", 24, 0));
        QCOMPARE(EvidenceSnapshot::readDelta(s, later).value_or(-1), 16.0 * 512);
    }

    // A multipath head whose kernel does not account I/O on it: all zeros, the paths move.
    void aMultipathHeadWithoutAccountingCountsItsPaths() {
        const auto before = take(proc("c", "nvme0n1", 0, 100));
        const auto after = take(proc("d", "nvme0n1", 0, 300));
        QCOMPARE(before.pathsReadBytes.value_or(0), std::uint64_t(2 * 100 * 512));
        QCOMPARE(EvidenceSnapshot::readDelta(before, after).value_or(-1), 2 * 200.0 * 512);
        // With accounting on the head, the head alone (the paths carry the same bytes).
        const auto counted = take(proc("e", "nvme0n1", 1000, 600));
        QCOMPARE(EvidenceSnapshot::readDelta(before, counted).value_or(-1), 1000.0 * 512);
    }

    void notOnABlockDeviceIsSaid() {
        const auto s = EvidenceSnapshot::take("/proc", {});
        QVERIFY(!s.device && !s.deviceReadBytes);
        QVERIFY(s.deviceWhy.find("not on a block device") != std::string::npos);
        QVERIFY(!EvidenceSnapshot::readDelta(s, s));
    }

    void countersSumTheirLabelSetsAndResetsAreUnknown() {
        const auto c = EvidenceSnapshot::counters("lmcache:num_hit_tokens_total{worker=\"0\"} 100\n"
                                                  "lmcache:num_hit_tokens_total{worker=\"1\"} 50\n"
                                                  "vllm:prefix_cache_hits_total{engine=\"0\"} 7\n"
                                                  "vllm:num_requests_running 3\n");
        // By the catalog's roles: one vocabulary for the mapper, the snapshot and the checks.
        QCOMPARE(c.at("lmcache_hit_tokens"), 150.0);
        QCOMPARE(c.at("prefix_cache_hits"), 7.0);
        QVERIFY(!c.count("requests_running")); // a gauge, not a counter
        // A renamed family served under both names is read once, by its new name.
        const auto renamed = EvidenceSnapshot::counters(
            "vllm:kv_offload_load_bytes_total 2048\n"
            "vllm:kv_offload_total_bytes_total{transfer_type=\"CPU_to_GPU\"} 2048\n"
            "vllm:kv_offload_total_bytes_total{transfer_type=\"GPU_to_CPU\"} 1024\n");
        QCOMPARE(renamed.at("kv_offload_load_bytes"), 2048.0);
        QCOMPARE(renamed.at("kv_offload_store_bytes"), 1024.0);
        const auto d = EvidenceSnapshot::delta({{"a", 10}, {"b", 5}, {"gone", 1}},
                                               {{"a", 25}, {"b", 2}, {"new", 4}});
        QCOMPARE(d.size(), std::size_t(1)); // b went backwards: restarted, unknown
        QCOMPARE(d.at("a"), 15.0);
    }
};

QTEST_GUILESS_MAIN(TestEvidenceSnapshot)
#include "tst_evidencesnapshot.moc"
