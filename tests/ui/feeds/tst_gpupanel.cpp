#include "TestSupport.h"
#include "core/store/LiveBuffer.h"
#include "ui/feeds/GpuDeviceTableModel.h"
#include "ui/feeds/GpuPanel.h"
#include "ui/feeds/GpuProcessSampler.h"
#include "ui/feeds/GpuProcessTableModel.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QThread>
#include <unistd.h>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

GpuProcessSnapshot::Process process(std::uint32_t pid, std::optional<std::string> name,
                                    std::optional<double> vram, bool graphics = false) {
    GpuProcessSnapshot::Process p;
    p.pid = pid;
    p.name = std::move(name);
    p.vramBytes = vram;
    p.compute = true;
    p.graphics = graphics;
    return p;
}

// GPU 0 runs vllm (40 GB) and a process gone before its name was read; GPU 1 cannot list.
GpuProcessSnapshot twoGpus() {
    GpuProcessSnapshot s;
    GpuProcessSnapshot::Gpu gpu0{0, "nvidia", "NVIDIA H100 80GB HBM3", "00000000:17:00.0", {}, ""};
    gpu0.processes = std::vector{process(4242, "vllm", 40e9, true), process(77, {}, {})};
    GpuProcessSnapshot::Gpu gpu1{1,
                                 "nvidia",
                                 "NVIDIA H100 80GB HBM3",
                                 "00000000:2A:00.0",
                                 std::nullopt,
                                 "nvmlDeviceGetComputeRunningProcesses_v3: "
                                 "Not Supported"};
    s.gpus = {gpu0, gpu1};
    s.statuses = {{"amd", "AMD", "GPU", false, "no KFD", ""},
                  {"nvidia", "NVIDIA", "GPU", true, "", "2 GPU(s) via libnvidia-ml.so.1"}};
    return s;
}

GpuProcessSnapshot noGpu() {
    GpuProcessSnapshot s;
    s.statuses = {{"amd", "AMD", "GPU", false, "rocm-smi not started (no KFD)", ""},
                  {"nvidia", "NVIDIA", "GPU", false, "libnvidia-ml.so.1 not found", ""},
                  {"ascend", "Ascend", "NPU", false, "libdcmi.so not found", ""}};
    return s;
}

void write(LiveBuffer& buffer, std::int64_t tNs, const std::string& path, double value) {
    const Reading r{{path, "1", "gauge", "{}"}, value};
    buffer.write(tNs, std::span<const Reading>(&r, 1));
}

} // namespace

class TestGpuPanel : public QObject {
    Q_OBJECT
  private slots:
    // The live buffer's newest sample of each GPU series, to one row per GPU.
    void figuresAreTheNewestSamples() {
        LiveBuffer buffer(600 * kSecond);
        write(buffer, 1 * kSecond, "gpu/0/busy_pct", 10);
        write(buffer, 2 * kSecond, "gpu/0/busy_pct", 63);
        write(buffer, 2 * kSecond, "gpu/0/vram_used_bytes", 42e9);
        write(buffer, 2 * kSecond, "gpu/0/vram_total_bytes", 85.9e9);
        write(buffer, 2 * kSecond, "gpu/0/power_w", 250);
        write(buffer, 2 * kSecond, "gpu/0/temp_c", 55);
        write(buffer, 2 * kSecond, "gpu/0/pcie_rx_bytes_per_s", 2e6);
        write(buffer, 2 * kSecond, "gpu/0/pcie_tx_bytes_per_s", 1e6);
        write(buffer, 2 * kSecond, "gpu/0/throttled", 1); // not a panel figure
        // AMD: edge and junction sensors, one PCIe count for both directions.
        write(buffer, 2 * kSecond, "gpu/1/temp_junction_c", 80);
        write(buffer, 2 * kSecond, "gpu/1/temp_edge_c", 61);
        write(buffer, 2 * kSecond, "gpu/1/pcie_bytes_per_s", 3e6);
        write(buffer, 40 * kSecond, "gpu/2/power_w", 90); // GPU 2 is only newer
        write(buffer, 40 * kSecond, "block/nvme0n1/read_bytes_per_s", 1e9);
        // At 40 s, GPU 0 and 1's samples of 2 s are stale: absent, not 0.
        QVERIFY(GpuFigures::fromLatest(GpuFigures::latest(buffer, 10 * kSecond)).size() == 1);
        const auto latest = GpuFigures::latest(buffer, 60 * kSecond);
        QCOMPARE(latest.at("gpu/0/busy_pct"), 63.0);
        QVERIFY(!latest.count("gpu/0/throttled"));
        QVERIFY(!latest.count("block/nvme0n1/read_bytes_per_s"));
        const auto figures = GpuFigures::fromLatest(latest);
        QCOMPARE(figures.size(), std::size_t(3));
        QCOMPARE(figures[0].busyPct, std::optional<double>(63));
        QCOMPARE(figures[0].vramUsedBytes, std::optional<double>(42e9));
        QCOMPARE(figures[0].tempC, std::optional<double>(55));
        QCOMPARE(figures[0].tempSensor, std::string());
        QCOMPARE(figures[0].pcieRxBytesPerS, std::optional<double>(2e6));
        QVERIFY(!figures[0].pcieBothBytesPerS);
        QCOMPARE(figures[1].tempC, std::optional<double>(61)); // edge, as nvtop shows
        QCOMPARE(figures[1].tempSensor, std::string("edge"));
        QCOMPARE(figures[1].pcieBothBytesPerS, std::optional<double>(3e6));
        QVERIFY(!figures[1].busyPct);
        QCOMPARE(figures[2].index, 2);
        QCOMPARE(figures[2].powerW, std::optional<double>(90));
    }

    void deviceModelShowsEachGpu() {
        GpuDeviceTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setGpus(twoGpus().gpus);
        QCOMPARE(model.rowCount(), 2);
        GpuFigures f0;
        f0.index = 0;
        f0.busyPct = 63;
        f0.vramUsedBytes = 42e9;
        f0.vramTotalBytes = 85.9e9;
        f0.powerW = 250;
        f0.tempC = 55;
        f0.pcieRxBytesPerS = 2e6;
        f0.pcieTxBytesPerS = 1e6;
        GpuFigures f1;
        f1.index = 1;
        f1.pcieBothBytesPerS = 3e6;
        model.setFigures({f0, f1});
        QCOMPARE(model.rowCount(), 2);
        auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(text(0, GpuDeviceTableModel::Model), QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(text(0, GpuDeviceTableModel::Busy), QString("63 %"));
        QCOMPARE(text(0, GpuDeviceTableModel::Vram), QString("42.0 GB / 85.9 GB"));
        QCOMPARE(text(0, GpuDeviceTableModel::Power), QString("250 W"));
        QCOMPARE(text(0, GpuDeviceTableModel::Temperature), QString("55 °C"));
        QCOMPARE(text(0, GpuDeviceTableModel::PcieRx), QString("2.0 MB/s"));
        QCOMPARE(text(0, GpuDeviceTableModel::PcieTx), QString("1.0 MB/s"));
        // Absent is an empty cell, never "0 %".
        QCOMPARE(text(1, GpuDeviceTableModel::Busy), QString());
        QVERIFY(!model.index(1, GpuDeviceTableModel::Busy).data(Qt::UserRole).isValid());
        QCOMPARE(text(1, GpuDeviceTableModel::PcieRx), QString("≤ 3.0 MB/s (rx+tx)"));
        QCOMPARE(text(1, GpuDeviceTableModel::PcieTx), QString());
        // A GPU the recording has but the sampler has not named still gets its row.
        GpuFigures f3;
        f3.index = 3;
        f3.powerW = 90;
        model.setFigures({f0, f1, f3});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(text(2, GpuDeviceTableModel::Gpu), QString("3"));
    }

    void processModelShowsEachProcess() {
        GpuProcessTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.message(), QString("Opening the GPU libraries ..."));
        model.setSnapshot(twoGpus());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(GpuProcessTableModel::ColumnCount));
        QVERIFY(model.message().isEmpty());
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role);
        };
        QCOMPARE(cell(0, GpuProcessTableModel::Gpu).toInt(), 0);
        QCOMPARE(cell(0, GpuProcessTableModel::Pid).toUInt(), 4242u);
        QCOMPARE(cell(0, GpuProcessTableModel::Name).toString(), QString("vllm"));
        QCOMPARE(cell(0, GpuProcessTableModel::Vram).toString(), QString("40.0 GB"));
        QCOMPARE(cell(0, GpuProcessTableModel::Vram, Qt::UserRole).toDouble(), 40e9);
        QCOMPARE(cell(0, GpuProcessTableModel::Type).toString(), QString("C+G"));
        // Gone before its name was read; VRAM not reported: empty cells, not "" and "0 B".
        QCOMPARE(cell(1, GpuProcessTableModel::Pid).toUInt(), 77u);
        QVERIFY(!cell(1, GpuProcessTableModel::Name, Qt::UserRole).isValid());
        QVERIFY(!cell(1, GpuProcessTableModel::Vram, Qt::UserRole).isValid());
        QCOMPARE(cell(1, GpuProcessTableModel::Type).toString(), QString("C"));
        QCOMPARE(model.footnote(),
                 QString("GPU 1: processes not listed "
                         "(nvmlDeviceGetComputeRunningProcesses_v3: Not Supported)"));
        model.setInactive();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.message().contains("live view of this machine"));
    }

    // No GPU here: the panel says which backends were tried and why none answered, in place
    // of two empty tables.
    void noGpuSaysWhy() {
        GpuPanel panel;
        panel.setSnapshot(noGpu());
        QVERIFY(!panel.showsTables());
        const QString message = panel.messageLabel()->text();
        QVERIFY2(message.startsWith("No GPU answered. Backends tried:"), qPrintable(message));
        QVERIFY(message.contains("AMD backend unavailable: rocm-smi not started (no KFD)"));
        QVERIFY(message.contains("NVIDIA backend unavailable: libnvidia-ml.so.1 not found"));
        QVERIFY(message.contains("Ascend backend unavailable: libdcmi.so not found"));
        panel.setSnapshot(twoGpus());
        QVERIFY(panel.showsTables());
        QCOMPARE(panel.deviceModel()->rowCount(), 2);
    }

    // In the docks' narrow, short column both GPUs' rows stay in view, above the horizontal
    // scroll bar their columns need, and three process rows below them.
    void everyGpuRowStaysInViewInASmallDock() {
        GpuPanel panel;
        panel.resize(320, 160);
        panel.setSnapshot(twoGpus());
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* devices = panel.findChild<QTableView*>("gpuDeviceTable");
        QVERIFY(devices);
        QTRY_VERIFY(devices->horizontalScrollBar()->isVisible());
        const int bottom = devices->rowViewportPosition(1) + devices->rowHeight(1);
        QVERIFY2(
            bottom <= devices->viewport()->height(),
            qPrintable(
                QString("row 2 ends at %1 of %2").arg(bottom).arg(devices->viewport()->height())));
        auto* processes = panel.findChild<QTableView*>("gpuProcessTable");
        QVERIFY(processes->minimumHeight() >=
                processes->verticalHeader()->defaultSectionSize() * 3);
    }

    // The sampler on its own thread, through the real dlopen path to the fake NVML library,
    // into the panel: the fake's processes in the table, this test's own by name.
    void fakeNvmlProcessesReachTheTable() {
        GpuBackends::Libraries libraries;
        libraries.nvml = FAKE_NVML;
        libraries.dcmi = {"/nonexistent/libdcmi.so"};
        GpuPanel panel;
        QThread thread;
        auto* sampler = new GpuProcessSampler({"/proc", "/nonexistent-sys"}, libraries);
        sampler->moveToThread(&thread);
        connect(&thread, &QThread::finished, sampler, &QObject::deleteLater);
        connect(sampler, &GpuProcessSampler::sampled, &panel, &GpuPanel::setSnapshot);
        thread.start();
        QMetaObject::invokeMethod(sampler, [sampler] { sampler->start(200); });
        auto* model = panel.processModel();
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 3, 30000);
        QMetaObject::invokeMethod(sampler, [sampler] { sampler->stop(); });
        thread.quit();
        thread.wait();
        QVERIFY(panel.showsTables());
        QCOMPARE(panel.deviceModel()->rowCount(), 2);
        QCOMPARE(panel.deviceModel()->index(0, GpuDeviceTableModel::Model).data().toString(),
                 QString("NVIDIA H100 80GB HBM3"));
        QCOMPARE(model->index(0, GpuProcessTableModel::Pid).data().toUInt(),
                 static_cast<unsigned>(getpid()));
        QCOMPARE(model->index(0, GpuProcessTableModel::Name).data().toString(),
                 QString("tst_gpupanel"));
        QCOMPARE(model->index(0, GpuProcessTableModel::Vram).data(Qt::UserRole).toDouble(),
                 2147483648.0);
        QCOMPARE(model->index(1, GpuProcessTableModel::Pid).data().toUInt(), 4194304u);
        QVERIFY(!model->index(1, GpuProcessTableModel::Name).data(Qt::UserRole).isValid());
        QVERIFY(panel.footnoteLabel()->text().contains("GPU 1: processes not listed"));
    }
};

QTEST_MAIN(TestGpuPanel)
#include "tst_gpupanel.moc"
