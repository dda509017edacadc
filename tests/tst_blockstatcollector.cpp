#include "TestSupport.h"
#include "collectors/BlockStatCollector.h"

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

    std::vector<Reading> twoSnapshots(BlockStatCollector& c) {
        plant("proc/diskstats-linux-6.1-nvme-multipath-t0.txt");
        const std::int64_t t0 = 1'700'000'000'000'000'000;
        if (!c.sample(t0).empty())
            qFatal("first sample has no baseline and must report nothing");
        plant("proc/diskstats-linux-6.1-nvme-multipath-t1.txt");
        return c.sample(t0 + 1'000'000'000);
    }

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
    }
};

QTEST_GUILESS_MAIN(TestBlockStatCollector)
#include "tst_blockstatcollector.moc"
