#include "TestSupport.h"
#include "collectors/storage/NvmePathAttrs.h"

#include <QTemporaryDir>
#include <cstring>

using namespace tierscope;

// The attributes of NVMe native multipath in the kernel's exact text (sysfs_emit "%s\n"), read
// from the fixture tree tests/fixtures/sysfs/nvme-multipath (see tests/fixtures/README.md).
class TestNvmePathAttrs : public QObject {
    Q_OBJECT
  private:
    static std::string sysRoot() { return TIERSCOPE_FIXTURES "/sysfs/nvme-multipath"; }
    static std::string file(const QString& relative) {
        return test::fixture("sysfs/nvme-multipath/" + relative);
    }

  private slots:
    void anaStatesAreTheKernelsFiveNames() {
        QCOMPARE(NvmePathAttrs::parseAnaState(file("block/nvme1c1n1/ana_state")).value(),
                 std::string("optimized"));
        QCOMPARE(NvmePathAttrs::parseAnaState(file("block/nvme1c3n1/ana_state")).value(),
                 std::string("non-optimized"));
        QCOMPARE(NvmePathAttrs::parseAnaState(file("block/nvme4c5n1/ana_state")).value(),
                 std::string("inaccessible"));
        for (const char* s : {"persistent-loss\n", "change\n"})
            QCOMPARE(NvmePathAttrs::parseAnaState(s).value(), std::string(s, std::strlen(s) - 1));
        // [0] of nvme_ana_state_names: the ANA log was not read yet, so the state is unknown.
        QVERIFY(!NvmePathAttrs::parseAnaState("invalid state\n"));
        QVERIFY(!NvmePathAttrs::parseAnaState(""));
        QVERIFY(!NvmePathAttrs::parseAnaState("Optimized\n"));
        QVERIFY(!NvmePathAttrs::parseAnaState("optimized-ish\n"));
    }

    void iopoliciesAreTheKernelsThreeNames() {
        QCOMPARE(NvmePathAttrs::parseIopolicy(file("class/nvme-subsystem/nvme-subsys1/iopolicy"))
                     .value(),
                 std::string("round-robin"));
        QCOMPARE(NvmePathAttrs::parseIopolicy(file("class/nvme-subsystem/nvme-subsys4/iopolicy"))
                     .value(),
                 std::string("queue-depth"));
        QCOMPARE(NvmePathAttrs::parseIopolicy(file("class/nvme-subsystem/nvme-subsys0/iopolicy"))
                     .value(),
                 std::string("numa"));
        QVERIFY(!NvmePathAttrs::parseIopolicy("service-time\n")); // dm-multipath's, not NVMe's
        QVERIFY(!NvmePathAttrs::parseIopolicy("\n"));
    }

    void fabricsAddressIsSplitIntoItsOptions() {
        const auto tcp = NvmePathAttrs::parseAddress(file("class/nvme/nvme1/address"));
        QCOMPARE(tcp.traddr.value(), std::string("192.168.10.20"));
        QCOMPARE(tcp.trsvcid.value(), std::string("4420"));
        QCOMPARE(tcp.srcAddr.value(), std::string("192.168.10.5"));
        QVERIFY(!tcp.hostTraddr);
        const auto rdma = NvmePathAttrs::parseAddress(file("class/nvme/nvme3/address"));
        QCOMPARE(rdma.traddr.value(), std::string("192.168.20.20"));
        QCOMPARE(rdma.hostTraddr.value(), std::string("192.168.20.5"));
        QVERIFY(!rdma.srcAddr);
        // FC addresses carry colons; host_iface is not an address and is skipped.
        const auto fc = NvmePathAttrs::parseAddress(
            "traddr=nn-0x200000109b579ef6:pn-0x100000109b579ef6,host_traddr=nn-0x20000090fa942779:"
            "pn-0x10000090fa942779,host_iface=eth0\n");
        QCOMPARE(fc.traddr.value(), std::string("nn-0x200000109b579ef6:pn-0x100000109b579ef6"));
        QCOMPARE(fc.hostTraddr.value(), std::string("nn-0x20000090fa942779:pn-0x10000090fa942779"));
        QVERIFY(!fc.trsvcid);
    }

    void pcieAddressIsTheFunction() {
        const auto pcie = NvmePathAttrs::parseAddress(file("class/nvme/nvme0/address"));
        QCOMPARE(pcie.traddr.value(), std::string("0000:3b:00.0"));
        QVERIFY(!pcie.trsvcid);
        QVERIFY(!NvmePathAttrs::parseAddress("").traddr);
        QVERIFY(!NvmePathAttrs::parseAddress("traddr=,trsvcid=4420").traddr);
    }

    void pathReadsItsControllerAndItsSubsystemsPolicy() {
        const auto p = NvmePathAttrs::of("nvme1c3n1", sysRoot());
        QVERIFY(p);
        QCOMPARE(p->anaState.value(), std::string("non-optimized"));
        QCOMPARE(p->iopolicy.value(), std::string("round-robin"));
        QCOMPARE(p->controller.value(), std::string("nvme3"));
        QCOMPARE(p->transport.value(), std::string("rdma"));
        QCOMPARE(p->controllerState.value(), std::string("live"));
        QCOMPARE(p->address.traddr.value(), std::string("192.168.20.20"));
        QCOMPARE(p->address.trsvcid.value(), std::string("4420"));
    }

    void headReadsOnlyThePolicy() {
        const auto h = NvmePathAttrs::of("nvme4n1", sysRoot());
        QVERIFY(h);
        QCOMPARE(h->iopolicy.value(), std::string("queue-depth"));
        QVERIFY(!h->anaState);
        QVERIFY(!h->controller);
    }

    void plainNamespaceAndOthersAreNotMultipath() {
        // nvme0n1's device is its controller, which has no iopolicy.
        QVERIFY(!NvmePathAttrs::of("nvme0n1", sysRoot()));
        QVERIFY(!NvmePathAttrs::of("vda", sysRoot()));
        QVERIFY(!NvmePathAttrs::of("../nvme1n1", sysRoot()));
        QVERIFY(!NvmePathAttrs::of("", sysRoot()));
    }

    void pathWithoutAnaHasNoState() {
        // A controller without ANA support: the kernel hides ana_state (nvme_ns_attrs_are_visible).
        QTemporaryDir dir;
        const QString root = dir.path();
        test::writeFile(root + "/class/nvme/nvme7/transport", "tcp\n");
        test::writeFile(root + "/class/nvme/nvme7/nvme7c7n1/nsid", "1\n");
        QDir().mkpath(root + "/block");
        QVERIFY(QFile::link("../../nvme7", root + "/class/nvme/nvme7/nvme7c7n1/device"));
        QVERIFY(QFile::link("../class/nvme/nvme7/nvme7c7n1", root + "/block/nvme7c7n1"));
        const auto p = NvmePathAttrs::of("nvme7c7n1", root.toStdString());
        QVERIFY(p);
        QVERIFY(!p->anaState);
        QVERIFY(!p->iopolicy); // the head is not there either
        QCOMPARE(p->transport.value(), std::string("tcp"));
        QCOMPARE(p->controller.value(), std::string("nvme7"));
    }
};

QTEST_GUILESS_MAIN(TestNvmePathAttrs)
#include "tst_nvmepathattrs.moc"
