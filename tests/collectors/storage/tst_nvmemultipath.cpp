#include "TestSupport.h"
#include "core/analysis/MultipathHeads.h"
#include "core/analysis/PathSkew.h"
#include "core/model/DeviceRecord.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// NVMe-oF native multipath through the real collectors and the real `tierscope devices`, in a
// private user+mount namespace: the fixture tree tests/fixtures/sysfs/nvme-multipath is
// bind-mounted over /sys/class and /sys/block, and a file over /proc/diskstats holds the
// kernel-6.12 snapshots proc/diskstats-linux-6.12-nvmeof-multipath-t0/-t1 (hidden path disks
// printed as "0 0 nvme1c1n1", heads without I/O accounting). Two subsystems:
// - nvme1n1, round-robin: paths nvme1c1n1 (tcp, optimized, 190 MiB/s at queue depth 24),
//   nvme1c2n1 (tcp, optimized, 10 MiB/s at 0.6) and nvme1c3n1 (rdma, non-optimized, idle);
// - nvme4n1, queue-depth: nvme4c4n1 (tcp, optimized, 320 MiB/s at 5.12) and nvme4c5n1 (tcp,
//   inaccessible, idle).
// Beside them a local PCIe nvme0n1 (1 MiB/s) without multipath.
class TestNvmeMultipath : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    nlohmann::json m_probe;
    QByteArray m_devicesText;
    nlohmann::json m_devicesJson;

    static QString fixtures() { return QStringLiteral(TIERSCOPE_FIXTURES); }

    static std::string readAll(const QString& path) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            qFatal("cannot read %s", qPrintable(path));
        return file.readAll().toStdString();
    }

    nlohmann::json block(const std::string& name) const {
        for (const auto& d : m_probe["devices"])
            if (d["kind"] == "block" && d["name"] == name)
                return d["attrs"];
        qFatal("no block device %s in discovery output", name.c_str());
    }

    double reading(const std::string& path) const {
        if (!m_probe["readings"].contains(path))
            qFatal("no reading %s", path.c_str());
        return m_probe["readings"][path]["value"].get<double>();
    }

    static std::string str(const nlohmann::json& attrs, const char* key) {
        return attrs.contains(key) ? attrs[key].get<std::string>() : std::string("<absent>");
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        test::writeFile(m_dir.path() + "/diskstats",
                        QByteArray::fromStdString(
                            test::fixture("proc/diskstats-linux-6.12-nvmeof-multipath-t0.txt")));
        const QString tree = fixtures() + "/sysfs/nvme-multipath";
        const QString next = fixtures() + "/proc/diskstats-linux-6.12-nvmeof-multipath-t1.txt";
        const QString script =
            QString("mount --bind '%1/class' /sys/class && mount --bind '%1/block' /sys/block && "
                    "mount --bind '%2/diskstats' /proc/diskstats && "
                    "'%3' --rates '%2/diskstats' '%4' > '%2/probe.json' && "
                    "'%5' --db '%2/none.db' devices > '%2/devices.txt' && "
                    "exec '%5' --db '%2/none.db' devices --json > '%2/devices.json'")
                .arg(tree, m_dir.path(), NVME_PROBE, next, TIERSCOPE_BINARY);
        QProcess unshare;
        unshare.start("unshare", {"-Urm", "sh", "-c", script});
        if (!unshare.waitForStarted())
            QSKIP("unshare(1) is not installed: cannot build a private mount namespace");
        QVERIFY(unshare.waitForFinished(60000));
        const QByteArray err = unshare.readAllStandardError();
        if (unshare.exitCode() != 0 &&
            (err.contains("Operation not permitted") || err.contains("unshare failed")))
            QSKIP(qPrintable("this kernel or container forbids user namespaces: " + err.trimmed()));
        QVERIFY2(unshare.exitCode() == 0, err.constData());
        m_probe = nlohmann::json::parse(readAll(m_dir.path() + "/probe.json"));
        m_devicesText = QByteArray::fromStdString(readAll(m_dir.path() + "/devices.txt"));
        m_devicesJson = nlohmann::json::parse(readAll(m_dir.path() + "/devices.json"));
    }

    void pathsCarryAnaStateControllerAndAddress() {
        const auto c1 = block("nvme1c1n1");
        QCOMPARE(str(c1, "path_of"), std::string("nvme1n1"));
        QCOMPARE(str(c1, "ana_state"), std::string("optimized"));
        QCOMPARE(str(c1, "iopolicy"), std::string("round-robin"));
        QCOMPARE(str(c1, "controller"), std::string("nvme1"));
        QCOMPARE(str(c1, "controller_state"), std::string("live"));
        QCOMPARE(str(c1, "transport"), std::string("tcp"));
        QCOMPARE(str(c1, "traddr"), std::string("192.168.10.20"));
        QCOMPARE(str(c1, "trsvcid"), std::string("4420"));
        QCOMPARE(str(c1, "src_addr"), std::string("192.168.10.5"));

        const auto c3 = block("nvme1c3n1");
        QCOMPARE(str(c3, "ana_state"), std::string("non-optimized"));
        QCOMPARE(str(c3, "controller"), std::string("nvme3"));
        QCOMPARE(str(c3, "transport"), std::string("rdma"));
        QCOMPARE(str(c3, "traddr"), std::string("192.168.20.20"));
        QCOMPARE(str(c3, "host_traddr"), std::string("192.168.20.5"));

        const auto c5 = block("nvme4c5n1");
        QCOMPARE(str(c5, "ana_state"), std::string("inaccessible"));
        QCOMPARE(str(c5, "iopolicy"), std::string("queue-depth"));
        QCOMPARE(str(c5, "path_of"), std::string("nvme4n1"));
    }

    void headsCarryTheSubsystemsPolicy() {
        const auto h1 = block("nvme1n1");
        QCOMPARE(str(h1, "iopolicy"), std::string("round-robin"));
        QVERIFY(!h1.contains("ana_state")); // a per-path attribute: the head has none
        QCOMPARE(str(h1, "transport"), std::string("rdma+tcp"));
        QCOMPARE(str(block("nvme4n1"), "iopolicy"), std::string("queue-depth"));
        // A plain namespace: its device is the controller, which has no policy.
        const auto local = block("nvme0n1");
        QVERIFY(!local.contains("iopolicy"));
        QVERIFY(!local.contains("ana_state"));
        QCOMPARE(str(local, "transport"), std::string("pcie"));
    }

    // Hidden path disks are in /proc/diskstats (with device number 0:0 since 5.15): per-path
    // GB/s and queue depth come from there, at iostat's definitions.
    void perPathRatesFromProcDiskstats() {
        QCOMPARE(reading("block/nvme1c1n1/read_bytes_per_s"), 389120.0 * 512);
        QCOMPARE(reading("block/nvme1c1n1/queue_depth"), 24.0);
        QCOMPARE(reading("block/nvme1c1n1/util_pct"), 100.0);
        QCOMPARE(reading("block/nvme1c2n1/read_bytes_per_s"), 20480.0 * 512);
        QCOMPARE(reading("block/nvme1c2n1/queue_depth"), 0.6);
        QCOMPARE(reading("block/nvme1c3n1/read_bytes_per_s"), 0.0);
        QCOMPARE(reading("block/nvme4c4n1/read_bytes_per_s"), 655360.0 * 512);
        QCOMPARE(reading("block/nvme4c4n1/queue_depth"), 5.12);
        QCOMPARE(reading("block/nvme1n1/read_bytes_per_s"), 0.0); // no accounting on the head
        const auto labels = m_probe["readings"]["block/nvme1c2n1/queue_depth"]["labels"];
        QCOMPARE(labels["path_of"].get<std::string>(), std::string("nvme1n1"));
        QCOMPARE(labels["transport"].get<std::string>(), std::string("tcp"));
        // The heads did not move, so each namespace counts once, through its paths.
        QCOMPARE(reading("block/total/read_bytes_per_s"),
                 (2048.0 + 389120.0 + 20480.0 + 655360.0) * 512);
    }

    // What `analyze` judges: one interval's bytes and queue depths per path, with the states
    // and the policy discovery recorded.
    void skewFoundFromTheRecordedPaths() {
        std::vector<DeviceRecord> devices;
        for (const auto& d : m_probe["devices"])
            devices.push_back(
                {d["kind"].get<std::string>(), d["name"].get<std::string>(), d["attrs"].dump()});
        auto heads = MultipathHeads::fromDevices(devices);
        QCOMPARE(heads.size(), std::size_t(2));
        for (auto& h : heads)
            for (auto& p : h.paths) {
                p.bytes = reading("block/" + p.name + "/read_bytes_per_s") +
                          reading("block/" + p.name + "/write_bytes_per_s");
                p.meanQueueDepth = reading("block/" + p.name + "/queue_depth");
            }
        const auto result = PathSkew::judge(heads);
        int skews = 0;
        for (const auto& f : result.findings)
            if (f.kind == PathSkew::Kind::OnePathCarriesAll) {
                ++skews;
                QCOMPARE(f.device, std::string("nvme1n1"));
                QCOMPARE(f.path, std::string("nvme1c1n1"));
                QCOMPARE(*f.share, 0.95);
                QCOMPARE(*f.meanQueueDepth, 24.0);
                QCOMPARE(*f.iopolicy, std::string("round-robin"));
            }
        // nvme4n1 has one optimized path: its imbalance is the inaccessible path, not skew.
        QCOMPARE(skews, 1);
        QCOMPARE(result.findings.size(), std::size_t(3));
    }

    void devicesCommandShowsPathsAndStaticFindings() {
        const QByteArray& out = m_devicesText;
        QVERIFY2(out.contains("NVMe multipath\n"), out.constData());
        QVERIFY2(out.contains("  nvme1n1  iopolicy round-robin\n"), out.constData());
        QVERIFY2(out.contains("  nvme4n1  iopolicy queue-depth\n"), out.constData());
        const auto lineOf = [&](const char* path) {
            for (const auto& line : out.split('\n'))
                if (line.simplified().startsWith(path))
                    return line.simplified();
            return QByteArray();
        };
        QCOMPARE(lineOf("nvme1c1n1 nvme1"),
                 QByteArray("nvme1c1n1 nvme1 tcp 192.168.10.20:4420 optimized live"));
        QCOMPARE(lineOf("nvme1c3n1 nvme3"),
                 QByteArray("nvme1c3n1 nvme3 rdma 192.168.20.20:4420 non-optimized live"));
        QCOMPARE(lineOf("nvme4c5n1 nvme5"),
                 QByteArray("nvme4c5n1 nvme5 tcp 192.168.11.21:4420 inaccessible live"));
        QVERIFY2(out.contains("  ! nvme1c3n1 (rdma 192.168.20.20:4420), a path of nvme1n1, is "
                              "non-optimized (ANA)"),
                 out.constData());
        QVERIFY2(out.contains("  ! nvme4c5n1 (tcp 192.168.11.21:4420), a path of nvme4n1, is "
                              "inaccessible (ANA)"),
                 out.constData());
        QCOMPARE(out.count("  ! "), 2); // skew needs traffic: `devices` never claims it
        // The section comes between the block devices and the backends.
        QVERIFY(out.indexOf("Block devices") < out.indexOf("NVMe multipath"));
        QVERIFY(out.indexOf("NVMe multipath") < out.indexOf("Backends"));
    }

    void devicesJsonListsPathFindingsAsEntries() {
        std::vector<std::string> findings;
        for (const auto& d : m_devicesJson)
            if (d["kind"] == "path-finding")
                findings.push_back(d["name"].get<std::string>() + " " +
                                   d["attrs"]["path"].get<std::string>() + " " +
                                   d["attrs"]["finding"].get<std::string>() + " " +
                                   d["attrs"]["ana_state"].get<std::string>());
        std::sort(findings.begin(), findings.end());
        QCOMPARE(findings,
                 (std::vector<std::string>{"nvme1n1 nvme1c3n1 path-not-optimized non-optimized",
                                           "nvme4n1 nvme4c5n1 path-inaccessible inaccessible"}));
        bool pathSeen = false;
        for (const auto& d : m_devicesJson)
            if (d["kind"] == "block" && d["name"] == "nvme1c1n1")
                pathSeen = d["attrs"]["ana_state"] == "optimized";
        QVERIFY(pathSeen);
    }
};

QTEST_GUILESS_MAIN(TestNvmeMultipath)
#include "tst_nvmemultipath.moc"
