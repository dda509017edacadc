#include "collectors/storage/PathDevice.h"

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace tierscope;
namespace fs = std::filesystem;

// The block devices under a directory, from a sysfs tree laid out as the kernel lays it out:
// /sys/dev/block/<major>:<minor> links into /sys/devices, /sys/block links to the same
// directories, a partition's directory sits inside its disk's with a "partition" file, and a
// stacked device's slaves/ links to its members.
class TestPathDevice : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SystemPaths m_paths;

    void device(const std::string& devicesPath, const std::string& number) {
        const fs::path sys = m_paths.sys;
        fs::create_directories(sys / "devices" / devicesPath);
        fs::create_directories(sys / "dev" / "block");
        fs::create_directory_symlink(fs::path("../../devices") / devicesPath,
                                     sys / "dev" / "block" / number);
    }
    void block(const std::string& name, const std::string& devicesPath) {
        fs::create_directories(fs::path(m_paths.sys) / "block");
        fs::create_directory_symlink(fs::path("../devices") / devicesPath,
                                     fs::path(m_paths.sys) / "block" / name);
    }
    void slave(const std::string& devicesPathOfHolder, const std::string& name,
               const std::string& devicesPathOfMember) {
        const fs::path slaves = fs::path(m_paths.sys) / "devices" / devicesPathOfHolder / "slaves";
        fs::create_directories(slaves);
        // slaves/<name> -> ../../../<...>/member, relative to the holder's directory.
        std::string up = "../";
        for (const char c : devicesPathOfHolder)
            if (c == '/')
                up += "../";
        fs::create_directory_symlink(fs::path(up + "../") / devicesPathOfMember, slaves / name);
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_paths.sys = m_dir.path().toStdString() + "/sys";
        const std::string nvme0 = "pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1";
        device(nvme0, "259:0");
        block("nvme0n1", nvme0);
        device(nvme0 + "/nvme0n1p1", "259:1");
        std::ofstream(m_paths.sys + "/devices/" + nvme0 + "/nvme0n1p1/partition") << "1\n";
        // An NVMe-oF namespace with two paths under native multipath, and LVM on top of it.
        const std::string head = "virtual/nvme-subsystem/nvme-subsys1/nvme1n1";
        device(head, "259:2");
        block("nvme1n1", head);
        for (const char* path : {"nvme1c1n1", "nvme1c2n1"}) {
            const std::string dir = std::string("virtual/nvme-fabrics/ctl/nvme1/") + path;
            fs::create_directories(fs::path(m_paths.sys) / "devices" / dir);
            block(path, dir);
        }
        device("virtual/block/dm-0", "253:0");
        block("dm-0", "virtual/block/dm-0");
        slave("virtual/block/dm-0", "nvme1n1", head);
        // md RAID 1 over two partitions.
        for (const char* disk : {"sda", "sdb"}) {
            const std::string dir = std::string("pci0000:00/ata1/") + disk;
            device(dir, disk == std::string("sda") ? "8:0" : "8:16");
            block(disk, dir);
            fs::create_directories(fs::path(m_paths.sys) / "devices" / dir /
                                   (std::string(disk) + "1"));
            std::ofstream(m_paths.sys + "/devices/" + dir + "/" + disk + "1/partition") << "1\n";
        }
        device("virtual/block/md0", "9:0");
        block("md0", "virtual/block/md0");
        slave("virtual/block/md0", "sda1", "pci0000:00/ata1/sda/sda1");
        slave("virtual/block/md0", "sdb1", "pci0000:00/ata1/sdb/sdb1");
    }

    // A filesystem on a partition is read through its whole disk, which is what the block
    // collector records.
    void aPartitionIsItsDisk() {
        const auto d = PathDevice::fromDeviceNumber(259, 1, m_paths);
        QCOMPARE(d.device, std::string("nvme0n1"));
        QVERIFY(d.members.empty());
        QVERIFY(d.paths.empty());
    }

    // LVM on an NVMe-oF namespace: the dm device, the multipath head it sits on, and the
    // head's two path disks, each of which the kernel counts.
    void throughDeviceMapperToTheNvmePaths() {
        const auto d = PathDevice::fromDeviceNumber(253, 0, m_paths);
        QCOMPARE(d.device, std::string("dm-0"));
        QCOMPARE(d.members, std::vector<std::string>({"nvme1n1"}));
        QCOMPARE(d.paths, (std::vector<std::string>{"nvme1c1n1", "nvme1c2n1"}));
        const auto head = PathDevice::fromDeviceNumber(259, 2, m_paths);
        QCOMPARE(head.device, std::string("nvme1n1"));
        QCOMPARE(head.paths.size(), std::size_t(2));
    }

    // md over partitions: its members are the whole disks.
    void mdMembersAreWholeDisks() {
        const auto d = PathDevice::fromDeviceNumber(9, 0, m_paths);
        QCOMPARE(d.device, std::string("md0"));
        QCOMPARE(d.members, (std::vector<std::string>{"sda", "sdb"}));
    }

    // Unknown numbers and virtual filesystems say why there is no device; the JSON a run keeps
    // has a null device then.
    void noDeviceSaysWhy() {
        const auto unknown = PathDevice::fromDeviceNumber(7, 99, m_paths);
        QVERIFY(unknown.device.empty());
        QVERIFY(unknown.why.find("7:99") != std::string::npos);
        QVERIFY(unknown.toJson()["device"].is_null());
        const auto shm = PathDevice::resolve("/dev/shm");
        QVERIFY(shm.device.empty());
        QVERIFY2(shm.why.find("not on a block device") != std::string::npos, shm.why.c_str());
        QVERIFY(PathDevice::resolve(m_dir.path().toStdString() + "/missing")
                    .why.starts_with("cannot stat"));
        const auto j = PathDevice::fromDeviceNumber(253, 0, m_paths).toJson();
        QCOMPARE(j["device"].get<std::string>(), std::string("dm-0"));
        QCOMPARE(j["paths"].size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestPathDevice)
#include "tst_pathdevice.moc"
