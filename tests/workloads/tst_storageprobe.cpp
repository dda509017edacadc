#include "workloads/StorageProbe.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace tierscope;

namespace {

bool plausible(const StorageProbe::Result& r) {
    auto finite = [](double v) { return std::isfinite(v) && v > 0; };
    // Bandwidths from 1 MB/s to 1 TB/s, IOPS from 10, a QD 1 read under a second.
    return finite(r.readBytesPerS) && finite(r.writeBytesPerS) && finite(r.randomReadIops) &&
           finite(r.unloadedReadS) && r.readBytesPerS > 1e6 && r.readBytesPerS < 1e12 &&
           r.writeBytesPerS > 1e6 && r.writeBytesPerS < 1e12 && r.randomReadIops > 10 &&
           r.unloadedReadS < 1.0;
}

StorageProbe::Result probe(const std::string& dir) {
    StorageProbe::Options o;
    o.dir = dir;
    o.sizeBytes = 16u << 20;
    o.duration = std::chrono::milliseconds(1200);
    return StorageProbe::run(o);
}

} // namespace

class TestStorageProbe : public QObject {
    Q_OBJECT
  private slots:
    // sysfs as the kernel lays it out: /sys/dev/block/MAJ:MIN links into the device tree, and
    // a partition's directory sits inside its disk's with a "partition" file.
    void wholeDiskOfAPartitionAndOfADisk() {
        QTemporaryDir sys;
        namespace fs = std::filesystem;
        const fs::path root = sys.path().toStdString();
        const fs::path disk = root / "devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1";
        fs::create_directories(disk / "nvme0n1p2");
        std::ofstream(disk / "nvme0n1p2" / "partition") << "2\n";
        fs::create_directories(root / "dev/block");
        fs::create_directory_symlink(
            "../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2",
            root / "dev/block/259:2");
        fs::create_directory_symlink("../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1",
                                     root / "dev/block/259:0");
        QCOMPARE(StorageProbe::wholeDisk(259, 2, root.string()), std::string("nvme0n1"));
        QCOMPARE(StorageProbe::wholeDisk(259, 0, root.string()), std::string("nvme0n1"));
        QCOMPARE(StorageProbe::wholeDisk(0, 42, root.string()), std::string()); // tmpfs, overlay
    }

    // The identity stored with a probe: the serial, and for NVMe the subsystem NQN and
    // namespace id that outlive the kernel name.
    void identifiesAnNvmeNamespace() {
        QTemporaryDir sys;
        namespace fs = std::filesystem;
        const fs::path root = sys.path().toStdString();
        const fs::path ctrl = root / "devices/virtual/nvme-fabrics/ctl/nvme3";
        fs::create_directories(ctrl / "nvme3n2");
        std::ofstream(ctrl / "transport") << "tcp\n";
        std::ofstream(ctrl / "subsysnqn") << "nqn.2014-08.org.example:fx100-array\n";
        std::ofstream(ctrl / "nvme3n2" / "nsid") << "2\n";
        std::ofstream(ctrl / "nvme3n2" / "wwid") << "uuid.6b0f1c44-3f9e-4b8c-9d0a-0e5b1d2c3a4f\n";
        fs::create_directory_symlink("../../nvme3", ctrl / "nvme3n2" / "device");
        fs::create_directories(root / "block");
        fs::create_directory_symlink("../devices/virtual/nvme-fabrics/ctl/nvme3/nvme3n2",
                                     root / "block/nvme3n2");
        StorageProbe::Result r;
        r.device = "nvme3n2";
        StorageProbe::identify(r, root.string());
        QCOMPARE(r.serial, std::string("uuid.6b0f1c44-3f9e-4b8c-9d0a-0e5b1d2c3a4f"));
        QCOMPARE(r.subsysNqn, std::string("nqn.2014-08.org.example:fx100-array"));
        QCOMPARE(r.nsid, std::string("2"));
        QCOMPARE(r.transport, std::string("tcp"));
        StorageProbe::Result none; // tmpfs: no device, no identity
        StorageProbe::identify(none, root.string());
        QVERIFY(none.subsysNqn.empty() && none.serial.empty());
    }

    // A RAM-backed directory and one on the build's disk: both plausible, each its own device,
    // and the probe file is gone afterwards.
    void probesRamAndDisk() {
        if (!QDir("/dev/shm").exists())
            QSKIP("no /dev/shm");
        QTemporaryDir ram("/dev/shm/tst_storageprobe-XXXXXX");
        QTemporaryDir disk(QDir::currentPath() + "/tst_storageprobe-XXXXXX");
        QVERIFY(ram.isValid() && disk.isValid());
        const auto a = probe(ram.path().toStdString());
        const auto b = probe(disk.path().toStdString());
        QVERIFY(plausible(a));
        QVERIFY(plausible(b));
        QVERIFY(StorageProbe::storageName(a, ram.path().toStdString()) !=
                StorageProbe::storageName(b, disk.path().toStdString()));
        QCOMPARE(QDir(ram.path())
                     .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
                     .size(),
                 0);
        QCOMPARE(QDir(disk.path())
                     .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
                     .size(),
                 0);
    }

    void refusesAMissingDirectory() {
        QVERIFY_THROWS_EXCEPTION(std::exception, probe("/nonexistent/tst_storageprobe"));
    }
};

QTEST_GUILESS_MAIN(TestStorageProbe)
#include "tst_storageprobe.moc"
