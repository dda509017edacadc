#include "collectors/storage/NvmeIdentity.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

using namespace tierscope;
namespace fs = std::filesystem;

// A fake sysfs laid out as the kernel does: /sys/block/<name> links into the device tree; a
// namespace's "device" is its controller, a native-multipath head's is its subsystem, whose
// directory links to its controllers.
class TestNvmeIdentity : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    fs::path m_root;

    void attr(const fs::path& file, const std::string& value) {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << value << "\n";
    }

    void link(const std::string& target, const fs::path& at) {
        fs::create_directories(at.parent_path());
        fs::create_directory_symlink(target, at);
    }

    // A PCIe drive: controller nvme0, namespace 1.
    void pcieDrive() {
        const fs::path ctrl = m_root / "devices/pci0000:00/0000:3b:00.0/nvme/nvme0";
        attr(ctrl / "transport", "pcie");
        attr(ctrl / "subsysnqn", "nqn.1994-11.com.samsung:nvme:990PRO:M.2:S7KHNJ0W123456");
        attr(ctrl / "nvme0n1/nsid", "1");
        link("../../nvme0", ctrl / "nvme0n1/device");
        link("../devices/pci0000:00/0000:3b:00.0/nvme/nvme0/nvme0n1", m_root / "block/nvme0n1");
    }

    // An NVMe-oF namespace 3 over TCP and RDMA paths, its head named `head` in subsystem
    // `subsys` with controllers `tcp` and `rdma`.
    void fabricsArray(const std::string& subsys, const std::string& head, const std::string& tcp,
                      const std::string& rdma) {
        const fs::path s = m_root / "devices/virtual/nvme-subsystem" / subsys;
        attr(s / "subsysnqn", "nqn.2014-08.org.example:fx100-array");
        for (const auto& [ctrl, transport] : {std::pair{tcp, "tcp"}, {rdma, "rdma"}}) {
            attr(m_root / "devices/virtual/nvme-fabrics/ctl" / ctrl / "transport", transport);
            link("../../nvme-fabrics/ctl/" + ctrl, s / ctrl);
        }
        attr(s / head / "nsid", "3");
        link("../../" + subsys, s / head / "device");
        link("../devices/virtual/nvme-subsystem/" + subsys + "/" + head, m_root / "block" / head);
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_root = m_dir.path().toStdString();
        pcieDrive();
    }

    void pcieNamespace() {
        const auto id = NvmeIdentity::of("nvme0n1", m_root.string());
        QVERIFY(id);
        QCOMPARE(id->subsysNqn,
                 std::string("nqn.1994-11.com.samsung:nvme:990PRO:M.2:S7KHNJ0W123456"));
        QCOMPARE(id->nsid, std::string("1"));
        QCOMPARE(id->transport, std::string("pcie"));
    }

    // The head of a namespace reached over two transports; after the controllers reconnect
    // the kernel calls it nvme4n1 in nvme-subsys4, and the identity is the same.
    void multipathHeadKeepsItsIdentityAcrossReconnects() {
        fabricsArray("nvme-subsys1", "nvme1n1", "nvme1", "nvme2");
        const auto before = NvmeIdentity::of("nvme1n1", m_root.string());
        QVERIFY(before);
        QCOMPARE(before->subsysNqn, std::string("nqn.2014-08.org.example:fx100-array"));
        QCOMPARE(before->nsid, std::string("3"));
        QCOMPARE(before->transport, std::string("rdma+tcp"));
        fabricsArray("nvme-subsys4", "nvme4n1", "nvme4", "nvme5");
        const auto after = NvmeIdentity::of("nvme4n1", m_root.string());
        QVERIFY(after);
        QCOMPARE(after->key(), before->key());
        QVERIFY(after->key() != NvmeIdentity::of("nvme0n1", m_root.string())->key());
    }

    void otherDevicesHaveNone() {
        attr(m_root / "block/sda/size", "1000");
        QVERIFY(!NvmeIdentity::of("sda", m_root.string()));
        QVERIFY(!NvmeIdentity::of("nvme9n1", m_root.string())); // gone
        QVERIFY(!NvmeIdentity::of("", m_root.string()));
        QVERIFY(!NvmeIdentity::of("../block/sda", m_root.string()));
    }
};

QTEST_GUILESS_MAIN(TestNvmeIdentity)
#include "tst_nvmeidentity.moc"
