#include "TestSupport.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// The real libnvme 1.3 scans a fake sysfs: one PCIe controller with a plain namespace and an
// NVMe-oF subsystem reached over TCP and RDMA (native multipath: two hidden path disks under one
// head). The fake tree is bind-mounted over /sys/class and /sys/block in a private user+mount
// namespace, so nothing on the host changes.
class TestNvmeDiscovery : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    nlohmann::json m_result;

    void attr(const QString& path, const QByteArray& value) {
        test::writeFile(m_dir.path() + "/" + path, value + "\n");
    }

    void controller(const QString& name, const QByteArray& transport, const QByteArray& address,
                    const QByteArray& model, const QByteArray& serial, const QByteArray& fw,
                    const QByteArray& nqn, const QString& subsys) {
        const QString c = "class/nvme/" + name + "/";
        attr(c + "transport", transport);
        attr(c + "address", address);
        attr(c + "model", model);
        attr(c + "serial", serial);
        attr(c + "firmware_rev", fw);
        attr(c + "state", "live");
        attr(c + "subsysnqn", nqn);
        attr(c + "cntlid", "1");
        const QString s = "class/nvme-subsystem/" + subsys + "/";
        attr(s + "subsysnqn", nqn);
        attr(s + "model", model);
        attr(s + "serial", serial);
        attr(s + "firmware_rev", fw);
        QFile::link("../../nvme/" + name, m_dir.path() + "/" + s + name);
    }

    nlohmann::json device(const std::string& kind, const std::string& name) {
        for (const auto& d : m_result["devices"])
            if (d["kind"] == kind && d["name"] == name)
                return d["attrs"];
        qFatal("no %s %s in discovery output", kind.c_str(), name.c_str());
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        controller("nvme0", "pcie", "0000:3b:00.0", "Samsung SSD 990 PRO 2TB", "S7KHNJ0W123456",
                   "4B2QJXD7", "nqn.1994-11.com.samsung:nvme:990PRO:M.2:S7KHNJ0W123456",
                   "nvme-subsys0");
        QDir().mkpath(m_dir.path() + "/class/nvme/nvme0/nvme0n1");
        const QByteArray nqn = "nqn.2014-08.org.example:fx100-array";
        controller("nvme1", "tcp", "traddr=192.168.10.20,trsvcid=4420,src_addr=192.168.10.5",
                   "FX100 NVMe-oF", "FX100SN0001", "1.2.3", nqn, "nvme-subsys1");
        controller("nvme2", "rdma", "traddr=192.168.20.20,trsvcid=4421", "FX100 NVMe-oF",
                   "FX100SN0001", "1.2.3", nqn, "nvme-subsys1");
        QDir().mkpath(m_dir.path() + "/class/nvme/nvme1/nvme1c1n1");
        QDir().mkpath(m_dir.path() + "/class/nvme/nvme2/nvme1c2n1");
        QDir().mkpath(m_dir.path() + "/class/nvme-subsystem/nvme-subsys1/nvme1n1");
        attr("block/nvme0n1/size", "3907029168");
        attr("block/nvme1n1/size", "7814037168");
        attr("block/nvme1c1n1/size", "7814037168");
        attr("block/nvme1c2n1/size", "7814037168");

        QProcess unshare;
        const QString script =
            QString("mount --bind '%1/class' /sys/class && mount --bind '%1/block' "
                    "/sys/block && exec '%2'")
                .arg(m_dir.path(), NVME_PROBE);
        unshare.start("unshare", {"-Urm", "sh", "-c", script});
        if (!unshare.waitForStarted())
            QSKIP("unshare(1) is not installed: cannot build a private mount namespace");
        QVERIFY(unshare.waitForFinished(30000));
        const QByteArray err = unshare.readAllStandardError();
        if (unshare.exitCode() != 0 &&
            (err.contains("Operation not permitted") || err.contains("unshare failed")))
            QSKIP(qPrintable("this kernel or container forbids user namespaces: " + err.trimmed()));
        QVERIFY2(unshare.exitCode() == 0, err.constData());
        m_result = nlohmann::json::parse(unshare.readAllStandardOutput().toStdString());
    }

    void pcieController() {
        const auto c = device("nvme-controller", "nvme0");
        QCOMPARE(c["transport"].get<std::string>(), std::string("pcie"));
        QCOMPARE(c["traddr"].get<std::string>(), std::string("0000:3b:00.0"));
        QCOMPARE(c["model"].get<std::string>(), std::string("Samsung SSD 990 PRO 2TB"));
        QCOMPARE(c["serial"].get<std::string>(), std::string("S7KHNJ0W123456"));
        QCOMPARE(c["firmware"].get<std::string>(), std::string("4B2QJXD7"));
        QCOMPARE(c["state"].get<std::string>(), std::string("live"));
        QCOMPARE(c["subsystem"].get<std::string>(), std::string("nvme-subsys0"));
        QCOMPARE(c["subsysnqn"].get<std::string>(),
                 std::string("nqn.1994-11.com.samsung:nvme:990PRO:M.2:S7KHNJ0W123456"));
        QCOMPARE(c["namespaces"].size(), std::size_t(1));
        QCOMPARE(c["namespaces"][0]["block"].get<std::string>(), std::string("nvme0n1"));
        QCOMPARE(c["namespaces"][0]["size_bytes"].get<std::uint64_t>(), 3907029168ull * 512);
        QVERIFY(!c["namespaces"][0].contains("head"));
    }

    void fabricsControllers() {
        const auto tcp = device("nvme-controller", "nvme1");
        QCOMPARE(tcp["transport"].get<std::string>(), std::string("tcp"));
        QCOMPARE(tcp["traddr"].get<std::string>(), std::string("192.168.10.20"));
        QCOMPARE(tcp["trsvcid"].get<std::string>(), std::string("4420"));
        QCOMPARE(tcp["subsysnqn"].get<std::string>(),
                 std::string("nqn.2014-08.org.example:fx100-array"));
        QCOMPARE(tcp["subsystem"].get<std::string>(), std::string("nvme-subsys1"));
        QCOMPARE(tcp["model"].get<std::string>(), std::string("FX100 NVMe-oF"));
        QCOMPARE(tcp["serial"].get<std::string>(), std::string("FX100SN0001"));
        QCOMPARE(tcp["firmware"].get<std::string>(), std::string("1.2.3"));
        QCOMPARE(tcp["namespaces"][0]["block"].get<std::string>(), std::string("nvme1c1n1"));
        QCOMPARE(tcp["namespaces"][0]["head"].get<std::string>(), std::string("nvme1n1"));

        const auto rdma = device("nvme-controller", "nvme2");
        QCOMPARE(rdma["transport"].get<std::string>(), std::string("rdma"));
        QCOMPARE(rdma["traddr"].get<std::string>(), std::string("192.168.20.20"));
        QCOMPARE(rdma["trsvcid"].get<std::string>(), std::string("4421"));
        QCOMPARE(rdma["namespaces"][0]["block"].get<std::string>(), std::string("nvme1c2n1"));
    }

    void blockDevicesCarryTransports() {
        const auto& t = m_result["transports"];
        QCOMPARE(t["nvme0n1"].get<std::string>(), std::string("pcie"));
        QCOMPARE(t["nvme1c1n1"].get<std::string>(), std::string("tcp"));
        QCOMPARE(t["nvme1c2n1"].get<std::string>(), std::string("rdma"));
        QCOMPARE(t["nvme1n1"].get<std::string>(), std::string("rdma+tcp"));
        const auto head = device("block", "nvme1n1");
        QCOMPARE(head["transport"].get<std::string>(), std::string("rdma+tcp"));
        QCOMPARE(head["size_bytes"].get<std::uint64_t>(), 7814037168ull * 512);
        const auto path = device("block", "nvme1c2n1");
        QCOMPARE(path["path_of"].get<std::string>(), std::string("nvme1n1"));
        const auto backend = device("backend", "nvme");
        QCOMPARE(backend["state"].get<std::string>(), std::string("available"));
        QCOMPARE(backend["detail"].get<std::string>(), std::string("3 NVMe controller(s) found"));
    }
};

QTEST_GUILESS_MAIN(TestNvmeDiscovery)
#include "tst_nvmediscovery.moc"
