#include "TestSupport.h"
#include "collectors/storage/BlockStatCollector.h"

#include <QTemporaryDir>
#include <map>
#include <nlohmann/json.hpp>

using namespace tierscope;

class TestBlockStatCollector : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    SystemPaths paths() const {
        return {m_dir.path().toStdString() + "/proc", m_dir.path().toStdString() + "/sys"};
    }

    static std::map<std::string, Reading> byPath(const std::vector<Reading>& readings) {
        std::map<std::string, Reading> out;
        for (const auto& r : readings)
            out.emplace(r.metric.path, r);
        return out;
    }

    void plant(const QString& fixture) {
        test::writeFile(m_dir.path() + "/proc/diskstats",
                        QByteArray::fromStdString(test::fixture(fixture)));
    }

    std::vector<Reading>
    twoSnapshots(BlockStatCollector& c,
                 const QString& fixture = "diskstats-linux-6.1-nvme-multipath") {
        plant("proc/" + fixture + "-t0.txt");
        const std::int64_t t0 = 1'700'000'000'000'000'000;
        if (!c.sample(t0).empty())
            qFatal("first sample has no baseline and must report nothing");
        plant("proc/" + fixture + "-t1.txt");
        return c.sample(t0 + 1'000'000'000);
    }

    // Both multipath fixtures: nvme0n1 reads 1 MiB/s and writes 40 KiB/s; namespace nvme1n1
    // reads 100 MiB/s + 50 MiB/s and writes 1 MiB/s + 512 KiB/s over paths nvme1c1n1 and
    // nvme1c2n1; dm-0 on nvme1n1 carries the same 150 MiB/s; namespace nvme1n2 is idle.
    static constexpr double kTotalRead = 1048576.0 + 104857600.0 + 52428800.0;
    static constexpr double kTotalWrite = 40960.0 + 1048576.0 + 524288.0;

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // sysfs marks partitions with a "partition" attribute.
        test::writeFile(m_dir.path() + "/sys/class/block/nvme0n1p1/partition", "1\n");
    }

    void multipathPathsAreSeparateAndNotDoubleCounted() {
        BlockStatCollector c(paths(), {{"nvme0n1", "pcie"},
                                       {"nvme1c1n1", "tcp"},
                                       {"nvme1c2n1", "rdma"},
                                       {"nvme1n1", "rdma+tcp"}});
        const auto r = byPath(twoSnapshots(c));

        QCOMPARE(r.at("block/nvme1c1n1/read_bytes_per_s").value, 104857600.0);
        QCOMPARE(r.at("block/nvme1c2n1/read_bytes_per_s").value, 52428800.0);
        QCOMPARE(r.at("block/nvme1n1/read_bytes_per_s").value, 157286400.0);
        // Head plus nvme0n1; hidden paths, the partition and dm-0 stay out of the total.
        QCOMPARE(r.at("block/total/read_bytes_per_s").value, 157286400.0 + 1048576.0);
        QCOMPARE(r.at("block/total/write_bytes_per_s").value, 40960.0);

        const auto pathLabels =
            nlohmann::json::parse(r.at("block/nvme1c1n1/util_pct").metric.labels);
        QCOMPARE(pathLabels["path_of"].get<std::string>(), std::string("nvme1n1"));
        QCOMPARE(pathLabels["transport"].get<std::string>(), std::string("tcp"));
        const auto headLabels = nlohmann::json::parse(r.at("block/nvme1n1/util_pct").metric.labels);
        QCOMPARE(headLabels["transport"].get<std::string>(), std::string("rdma+tcp"));
        QVERIFY(!headLabels.contains("path_of"));
    }

    void headWithoutAccountingCountsItsPaths() {
        // Kernel 5.15: the head line stays all zeros, only the hidden paths move.
        BlockStatCollector c(paths(), {});
        const auto r = byPath(twoSnapshots(c, "diskstats-linux-5.15-nvme-multipath-head-off"));
        QCOMPARE(r.at("block/nvme1n1/read_bytes_per_s").value, 0.0);
        QCOMPARE(r.at("block/nvme1c1n1/read_bytes_per_s").value, 104857600.0);
        QCOMPARE(r.at("block/nvme1c2n1/read_bytes_per_s").value, 52428800.0);
        QCOMPARE(r.at("block/dm-0/read_bytes_per_s").value, 157286400.0);
        QCOMPARE(r.at("block/total/read_bytes_per_s").value, kTotalRead);
        QCOMPARE(r.at("block/total/write_bytes_per_s").value, kTotalWrite);
    }

    void headWithAccountingIsNotDoubleCounted() {
        // Kernel 6.8 with queue/iostats = 1: the head moves with the sum of its paths.
        BlockStatCollector c(paths(), {});
        const auto r = byPath(twoSnapshots(c, "diskstats-linux-6.8-nvme-multipath-head-on"));
        QCOMPARE(r.at("block/nvme1n1/read_bytes_per_s").value, 157286400.0);
        QCOMPARE(r.at("block/nvme1c1n1/read_bytes_per_s").value, 104857600.0);
        QCOMPARE(r.at("block/nvme1c2n1/read_bytes_per_s").value, 52428800.0);
        QCOMPARE(r.at("block/total/read_bytes_per_s").value, kTotalRead);
        QCOMPARE(r.at("block/total/write_bytes_per_s").value, kTotalWrite);
    }

    void filtersPartitionsLoopZramAndNewDevices() {
        BlockStatCollector c(paths(), {});
        const auto r = byPath(twoSnapshots(c));
        for (const auto& [path, reading] : r) {
            QVERIFY2(!path.starts_with("block/nvme0n1p1/"), path.c_str());
            QVERIFY2(!path.starts_with("block/loop0/"), path.c_str());
            QVERIFY2(!path.starts_with("block/zram0/"), path.c_str());
            QVERIFY2(!path.starts_with("block/nvme2n1/"), path.c_str()); // no baseline yet
        }
        QVERIFY(r.count("block/dm-0/read_bytes_per_s") == 1);
        QCOMPARE(r.at("block/nvme0n1/read_await_s").value, 0.0005);
        QCOMPARE(r.at("block/nvme0n1/util_pct").value, 50.0);
        QCOMPARE(r.at("block/nvme0n1/queue_depth").value, 0.8);
        // No write completed on the path disk: its write await is absent, not zero.
        QVERIFY(r.count("block/nvme1c1n1/write_await_s") == 0);
        QVERIFY(r.count("block/nvme1c1n1/write_bytes_per_s") == 1);
    }

    void counterResetSkipsOneIntervalThenRecovers() {
        BlockStatCollector c(paths(), {});
        twoSnapshots(c);
        plant("proc/diskstats-linux-6.1-nvme-multipath-t0.txt"); // counters went backwards
        const auto reset = byPath(c.sample(1'700'000'002'000'000'000));
        QVERIFY(reset.count("block/nvme0n1/read_bytes_per_s") == 0);
        plant("proc/diskstats-linux-6.1-nvme-multipath-t1.txt");
        const auto after = byPath(c.sample(1'700'000'003'000'000'000));
        QCOMPARE(after.at("block/nvme0n1/read_bytes_per_s").value, 1048576.0);
    }

    void wrappedTimeInQueueKeepsTheDeviceInTheTotal() {
        BlockStatCollector c(paths(), {});
        const auto r = byPath(twoSnapshots(c, "diskstats-linux-6.8-u32-wrap"));
        QCOMPARE(r.at("block/nvme0n1/queue_depth").value, 64.0);
        QCOMPARE(r.at("block/nvme0n1/util_pct").value, 100.0);
        QCOMPARE(r.at("block/total/read_bytes_per_s").value, 104857600.0 + 1048576.0);
        QCOMPARE(r.at("block/total/write_bytes_per_s").value, 10485760.0 + 40960.0);
    }

    void disappearingDeviceStopsReporting() {
        BlockStatCollector c(paths(), {});
        twoSnapshots(c);
        test::writeFile(m_dir.path() + "/proc/diskstats",
                        " 259       0 nvme0n1 1200 20 84096 600 2020 40 160160 1060 0 2200 3100 0 "
                        "0 0 0 10 5\n");
        const auto r = byPath(c.sample(1'700'000'002'000'000'000));
        QVERIFY(r.count("block/nvme0n1/read_bytes_per_s") == 1);
        QVERIFY(r.count("block/nvme1n1/read_bytes_per_s") == 0);
    }

    void devicesReadSysfsAttributes() {
        test::writeFile(m_dir.path() + "/sys/block/nvme1n1/size", "7814037168\n");
        test::writeFile(m_dir.path() + "/sys/block/nvme1n1/device/model", "FX100 NVMe-oF   \n");
        test::writeFile(m_dir.path() + "/sys/block/nvme1n1/queue/rotational", "0\n");
        test::writeFile(m_dir.path() + "/sys/block/nvme1n1/nsid", "1\n");
        test::writeFile(m_dir.path() + "/sys/block/nvme1n1/device/subsysnqn",
                        "nqn.2014-08.org.example:fx100-array\n");
        test::writeFile(m_dir.path() + "/sys/block/loop0/size", "0\n");
        BlockStatCollector c(paths(), {{"nvme1n1", "tcp"}});
        const auto devices = c.devices();
        QCOMPARE(devices.size(), std::size_t(1));
        QCOMPARE(devices[0].name, std::string("nvme1n1"));
        const auto a = nlohmann::json::parse(devices[0].attrs);
        QCOMPARE(a["size_bytes"].get<std::uint64_t>(), 7814037168ull * 512);
        QCOMPARE(a["model"].get<std::string>(), std::string("FX100 NVMe-oF"));
        QCOMPARE(a["transport"].get<std::string>(), std::string("tcp"));
        QCOMPARE(a["rotational"].get<bool>(), false);
        QCOMPARE(a["in_total"].get<std::string>(), std::string("yes"));
        // What names the namespace across reconnects, for the probe that measured it.
        QCOMPARE(a["subsysnqn"].get<std::string>(),
                 std::string("nqn.2014-08.org.example:fx100-array"));
        QCOMPARE(a["nsid"].get<std::string>(), std::string("1"));
    }

    void devicesSayWhichAreLeftOutOfTheTotal() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const char* name : {"sda", "dm-0", "md127", "bcache0", "drbd1", "zd16", "nvme1n1",
                                 "nvme1c1n1", "nvme1c2n1"})
            test::writeFile(dir.path() + "/sys/block/" + name + "/size", "8\n");
        BlockStatCollector c(
            {dir.path().toStdString() + "/proc", dir.path().toStdString() + "/sys"}, {});
        std::map<std::string, std::string> rule;
        for (const auto& d : c.devices())
            rule[d.name] = nlohmann::json::parse(d.attrs)["in_total"].get<std::string>();
        const std::map<std::string, std::string> expected = {{"sda", "yes"},
                                                             {"dm-0", "no: dm"},
                                                             {"md127", "no: md"},
                                                             {"bcache0", "no: bcache"},
                                                             {"drbd1", "no: drbd"},
                                                             {"zd16", "no: zvol"},
                                                             {"nvme1n1", "if it moves"},
                                                             {"nvme1c1n1", "if head idle"},
                                                             {"nvme1c2n1", "if head idle"}};
        QCOMPARE(rule, expected);
    }

    void stackedDevicesStayOutOfTheTotal() {
        // bcache0 on sda (its cached reads), zd0 a zvol on the same disk: each repeats sda.
        BlockStatCollector c(paths(), {});
        test::writeFile(m_dir.path() + "/proc/diskstats",
                        "   8       0 sda 100 0 8000 50 0 0 0 0 0 100 50 0 0 0 0 0 0\n"
                        " 252       0 bcache0 50 0 4000 40 0 0 0 0 0 80 40 0 0 0 0 0 0\n"
                        " 230       0 zd0 50 0 4000 40 0 0 0 0 0 80 40 0 0 0 0 0 0\n"
                        " 147       1 drbd1 50 0 4000 40 0 0 0 0 0 80 40 0 0 0 0 0 0\n");
        QVERIFY(c.sample(1'000'000'000).empty());
        test::writeFile(m_dir.path() + "/proc/diskstats",
                        "   8       0 sda 200 0 10048 100 0 0 0 0 0 200 100 0 0 0 0 0 0\n"
                        " 252       0 bcache0 150 0 6048 80 0 0 0 0 0 180 80 0 0 0 0 0 0\n"
                        " 230       0 zd0 150 0 6048 80 0 0 0 0 0 180 80 0 0 0 0 0 0\n"
                        " 147       1 drbd1 150 0 6048 80 0 0 0 0 0 180 80 0 0 0 0 0 0\n");
        const auto r = byPath(c.sample(2'000'000'000));
        QCOMPARE(r.at("block/bcache0/read_bytes_per_s").value, 1048576.0);
        QCOMPARE(r.at("block/zd0/read_bytes_per_s").value, 1048576.0);
        QCOMPARE(r.at("block/total/read_bytes_per_s").value, 1048576.0); // sda alone
    }
};

QTEST_GUILESS_MAIN(TestBlockStatCollector)
#include "tst_blockstatcollector.moc"
