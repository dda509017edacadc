#include "TestSupport.h"
#include "collectors/host/HostCollector.h"

#include <QTemporaryDir>
#include <map>

using namespace tierscope;

class TestHostCollector : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    void plant(const char* stat, const char* netdev, std::uint64_t ibRx, std::uint64_t ibTx) {
        const QString root = m_dir.path();
        test::writeFile(root + "/proc/stat", stat);
        test::writeFile(root + "/proc/net/dev", netdev);
        test::writeFile(
            root + "/proc/meminfo",
            "MemTotal:       1000 kB\nMemAvailable:    400 kB\nCached:          300 kB\n"
            "Dirty:            20 kB\nWriteback:        10 kB\n");
        const QString ib = root + "/sys/class/infiniband/mlx5_0/ports/1/counters/";
        test::writeFile(ib + "port_rcv_data", QByteArray::number(qulonglong(ibRx)) + "\n");
        test::writeFile(ib + "port_xmit_data", QByteArray::number(qulonglong(ibTx)) + "\n");
    }

    static std::map<std::string, double> byPath(const std::vector<Reading>& readings) {
        std::map<std::string, double> out;
        for (const auto& r : readings)
            out.emplace(r.metric.path, r.value);
        return out;
    }

  private slots:
    void ratesFromTwoSnapshots() {
        QVERIFY(m_dir.isValid());
        const char* header = "Inter-|   Receive |  Transmit\n face |bytes packets|bytes packets\n";
        plant("cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 "
              "0 0 0 0\n",
              (std::string(header) + "  eth0: 1000 10 0 0 0 0 0 0 500 5 0 0 0 0 0 0\n").c_str(),
              1000, 2000);
        HostCollector c(
            {m_dir.path().toStdString() + "/proc", m_dir.path().toStdString() + "/sys"});
        const std::int64_t t0 = 1'700'000'000'000'000'000;
        const auto first = byPath(c.sample(t0));
        // Gauges come at once; rates need a second snapshot.
        QCOMPARE(first.at("host/mem/used_bytes"), 600.0 * 1024);
        QCOMPARE(first.at("host/mem/page_cache_bytes"), 300.0 * 1024);
        QCOMPARE(first.at("host/mem/dirty_bytes"), 20.0 * 1024);
        QCOMPARE(first.at("host/mem/writeback_bytes"), 10.0 * 1024);
        QVERIFY(first.count("host/cpu/busy_pct") == 0);
        QVERIFY(first.count("host/net/eth0/rx_bytes_per_s") == 0);

        // 2 s later: cpu0 fully busy, cpu1 idle; eth0 +4000/+1000 bytes; IB +1e6 words rx.
        plant("cpu  300 0 100 1000 0 0 0 0 0 0\ncpu0 250 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 600 0 "
              "0 0 0 0 0\n",
              (std::string(header) + "  eth0: 5000 20 0 0 0 0 0 0 1500 9 0 0 0 0 0 0\n").c_str(),
              1000 + 1'000'000, 2000 + 500);
        const auto second = byPath(c.sample(t0 + 2'000'000'000));
        QCOMPARE(second.at("host/cpu/busy_pct"), 50.0);
        QCOMPARE(second.at("host/cpu/0/busy_pct"), 100.0);
        QCOMPARE(second.at("host/cpu/1/busy_pct"), 0.0);
        QCOMPARE(second.at("host/net/eth0/rx_bytes_per_s"), 2000.0);
        QCOMPARE(second.at("host/net/eth0/tx_bytes_per_s"), 500.0);
        QCOMPARE(second.at("host/rdma/mlx5_0/1/rx_bytes_per_s"), 4.0 * 1'000'000 / 2);
        QCOMPARE(second.at("host/rdma/mlx5_0/1/tx_bytes_per_s"), 4.0 * 500 / 2);
    }

    void stealIsItsOwnSeriesAndNotBusy() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        HostCollector c({dir.path().toStdString() + "/proc", dir.path().toStdString() + "/sys"});
        test::writeFile(dir.path() + "/proc/stat", QByteArray::fromStdString(test::fixture(
                                                       "proc/stat-linux-6.8-kvm-steal-t0.txt")));
        QVERIFY(byPath(c.sample(1'000'000'000)).count("host/cpu/steal_pct") == 0);
        test::writeFile(dir.path() + "/proc/stat", QByteArray::fromStdString(test::fixture(
                                                       "proc/stat-linux-6.8-kvm-steal-t1.txt")));
        const auto r = byPath(c.sample(2'000'000'000));
        QCOMPARE(r.at("host/cpu/busy_pct"), 55.0);
        QCOMPARE(r.at("host/cpu/0/busy_pct"), 55.0);
        QCOMPARE(r.at("host/cpu/steal_pct"), 20.0);
        QVERIFY(r.count("host/cpu/0/steal_pct") == 0); // the machine-wide share only
    }

    void missingSourcesReportNothing() {
        HostCollector c({"/nonexistent/proc", "/nonexistent/sys"});
        QVERIFY(c.sample(1).empty());
        QVERIFY(c.sample(2).empty());
    }

    void realProcOfThisMachine() {
        HostCollector c({});
        c.sample(1'000'000'000);
        QThread::msleep(300); // /proc/stat advances in 10 ms ticks
        const auto r = byPath(c.sample(1'200'000'000));
        QVERIFY(r.count("host/cpu/busy_pct") == 1);
        QVERIFY(r.at("host/cpu/busy_pct") >= 0.0 && r.at("host/cpu/busy_pct") <= 100.0);
        QVERIFY(r.at("host/mem/used_bytes") > 0);
    }
};

QTEST_GUILESS_MAIN(TestHostCollector)
#include "tst_hostcollector.moc"
