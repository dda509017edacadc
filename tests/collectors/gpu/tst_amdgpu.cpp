#include "TestSupport.h"
#include "collectors/gpu/AmdRocmSmi.h"
#include "support/FakeAmdGpuTree.h"

#include <QProcess>
#include <QTemporaryDir>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/inotify.h>
#include <unistd.h>

using namespace tierscope;
using test::FakeAmdGpu;
using test::FakeAmdGpuTree;

// The real rocm-smi-lib reads a fake sysfs + KFD topology, bind-mounted over /sys/class in a
// private user and mount namespace; the collector's samples must equal the planted values.
class TestAmdGpu : public QObject {
    Q_OBJECT
  private:
    struct Probe {
        int exitCode = -1;
        nlohmann::json out;
        QByteArray err;
    };

    static FakeAmdGpu gpu0() {
        FakeAmdGpu g;
        g.busId = "0000:03:00.0";
        g.busyPct = 37;
        g.memBusyPct = 12;
        g.vramUsed = 68719476736;   // 64 GiB
        g.vramTotal = 206158430208; // 192 GiB
        g.gttUsed = 1073741824;
        g.powerMicrowatts = 350000000;
        g.edgeMilliC = 45000;
        g.junctionMilliC = 61000;
        g.pcieSent = 1000;
        g.pcieReceived = 2000;
        g.pcieMaxPayload = 256;
        g.gfxActivity = 42;
        g.umcActivity = 17;
        g.throttleStatus = 0x2; // a power throttler of the ASIC's firmware
        // A Gen5 x16 card whose link trained at Gen4 x8.
        g.linkSpeed = "16.0 GT/s PCIe";
        g.maxLinkSpeed = "32.0 GT/s PCIe";
        g.linkWidth = "8";
        g.maxLinkWidth = "16";
        g.computePartition = "CPX";
        g.memoryPartition = "NPS4";
        g.serial = "692251840010";
        g.uniqueId = "0x1234abcd5678ef00";
        return g;
    }

    static FakeAmdGpu gpu1() // lacks mem_busy_percent and gpu_metrics
    {
        FakeAmdGpu g;
        g.busId = "0000:83:00.0";
        g.busyPct = 88;
        g.vramUsed = 137438953472;
        g.vramTotal = 206158430208;
        g.gttUsed = 2147483648;
        g.powerMicrowatts = 710000000;
        g.edgeMilliC = 52000;
        g.junctionMilliC = 79000;
        g.pcieSent = 10;
        g.pcieReceived = 20;
        g.pcieMaxPayload = 512;
        g.serial = "692251840011";
        g.uniqueId = "0x1234abcd5678ef01";
        return g;
    }

    // Runs gpu_probe with `tree` as /sys/class. `during` runs once the probe is started.
    Probe probe(const QString& tree, const QStringList& args,
                const std::function<void(QProcess&)>& during = {}, const QString& preload = {},
                const QProcessEnvironment& extra = {}) {
        QProcess p;
        // rocm-smi keeps a mutex per card in /dev/shm; a private one keeps a probe that was
        // stopped mid-init from holding up the next, and leaves nothing on the machine.
        QString command =
            QString("mount -t tmpfs tmpfs /dev/shm && mount --bind '%1' /sys/class && exec '%2'")
                .arg(tree, GPU_PROBE);
        for (const auto& a : args)
            command += " " + a;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TIERSCOPE_NVML_LIBRARY", "libnvidia-ml-not-here.so.1");
        env.insert("TIERSCOPE_DCMI_LIBRARY", "libdcmi-not-here.so");
        if (!preload.isEmpty())
            env.insert("LD_PRELOAD", preload);
        env.insert(extra);
        p.setProcessEnvironment(env);
        p.start("unshare", {"-Urm", "sh", "-c", command});
        if (!p.waitForStarted())
            return {};
        if (during)
            during(p);
        p.waitForFinished(60000);
        Probe result;
        result.exitCode = p.exitCode();
        result.err = p.readAllStandardError();
        const QByteArray out = p.readAllStandardOutput();
        const auto json = out.mid(out.lastIndexOf("\n{") + 1);
        result.out = nlohmann::json::parse(
            json.startsWith('{') ? json.toStdString() : out.toStdString(), nullptr, false);
        return result;
    }

    static std::map<std::string, double> cycle(const Probe& p, std::size_t i) {
        std::map<std::string, double> out;
        for (const auto& r : p.out["cycles"][i])
            out[r["path"].get<std::string>()] = r["value"].get<double>();
        return out;
    }

    static nlohmann::json status(const Probe& p, const std::string& backend) {
        for (const auto& s : p.out["statuses"])
            if (s["backend"] == backend)
                return s;
        return {};
    }

  private slots:
    void initTestCase() {
        QProcess check;
        check.start("unshare", {"-Urm", "true"});
        if (!check.waitForStarted())
            QSKIP("unshare(1) is not installed: cannot build a private mount namespace");
        check.waitForFinished();
        if (check.exitCode() != 0)
            QSKIP(qPrintable("this kernel or container forbids user namespaces: " +
                             check.readAllStandardError()));
    }

    void plantedValuesOfTwoGpus() {
        QTemporaryDir dir;
        FakeAmdGpuTree::build(dir.path().toStdString(), {gpu0(), gpu1()});
        const auto p = probe(dir.path(), {"--cycles", "1"});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QVERIFY2(status(p, "amd")["available"].get<bool>(), status(p, "amd").dump().c_str());
        const auto r = cycle(p, 0);
        QCOMPARE(r.at("gpu/0/busy_pct"), 37.0);
        QCOMPARE(r.at("gpu/0/mem_busy_pct"), 12.0);
        QCOMPARE(r.at("gpu/0/vram_used_bytes"), 68719476736.0);
        QCOMPARE(r.at("gpu/0/vram_total_bytes"), 206158430208.0);
        QCOMPARE(r.at("gpu/0/gtt_used_bytes"), 1073741824.0);
        QCOMPARE(r.at("gpu/0/power_w"), 350.0);
        QCOMPARE(r.at("gpu/0/temp_edge_c"), 45.0);
        QCOMPARE(r.at("gpu/0/temp_junction_c"), 61.0);
        QCOMPARE(r.at("gpu/0/gfx_activity_pct"), 42.0);
        QCOMPARE(r.at("gpu/0/umc_activity_pct"), 17.0);
        // pcie_bw's two counts together: no direction claimed.
        QCOMPARE(r.at("gpu/0/pcie_bytes_per_s"), (1000.0 + 2000.0) * 256);
        QVERIFY(r.count("gpu/0/pcie_tx_bytes_per_s") == 0);
        QVERIFY(r.count("gpu/0/pcie_rx_bytes_per_s") == 0);
        QCOMPARE(r.at("gpu/0/suspended"), 0.0);
        QCOMPARE(r.at("gpu/0/throttle_status"), 2.0);
        QCOMPARE(r.at("gpu/0/throttled"), 1.0);
        QCOMPARE(r.at("gpu/0/pcie_link_speed_gts"), 16.0);
        QCOMPARE(r.at("gpu/0/pcie_link_speed_max_gts"), 32.0);
        QCOMPARE(r.at("gpu/0/pcie_link_width"), 8.0);
        QCOMPARE(r.at("gpu/0/pcie_link_width_max"), 16.0);

        QCOMPARE(r.at("gpu/1/busy_pct"), 88.0);
        QCOMPARE(r.at("gpu/1/vram_used_bytes"), 137438953472.0);
        QCOMPARE(r.at("gpu/1/power_w"), 710.0);
        QCOMPARE(r.at("gpu/1/temp_edge_c"), 52.0);
        QCOMPARE(r.at("gpu/1/temp_junction_c"), 79.0);
        QCOMPARE(r.at("gpu/1/pcie_bytes_per_s"), (10.0 + 20.0) * 512);
        // Readings the device does not have are absent, not zero.
        QVERIFY(r.count("gpu/1/mem_busy_pct") == 0);
        QVERIFY(r.count("gpu/1/throttled") == 0);
        QVERIFY(r.count("gpu/1/pcie_link_width") == 0);
        QVERIFY(r.count("gpu/1/pcie_link_speed_gts") == 0);
        QVERIFY(r.count("gpu/1/gfx_activity_pct") == 0);
        QVERIFY(r.count("gpu/1/umc_activity_pct") == 0);
        // gpu_metrics whose energy_accumulator the firmware left all ones, and no gpu_metrics.
        QVERIFY(r.count("gpu/0/energy_j") == 0);
        QVERIFY(r.count("gpu/1/energy_j") == 0);

        for (const auto& reading : p.out["cycles"][0])
            if (reading["path"].get<std::string>().ends_with("pcie_bytes_per_s")) {
                QVERIFY(reading["labels"]["upper_bound"].get<bool>());
                QCOMPARE(reading["labels"]["direction"].get<std::string>(), std::string("both"));
            }
    }

    // rsmi_dev_energy_count_get: gpu_metrics' energy_accumulator times the resolution rocm-smi
    // states (15.3 uJ, a float), as gpu/<n>/energy_j in joules that never go down. Cycles 1 s
    // apart: the counter grows, wraps at 32 bits (an SMU 11 firmware counter), then drops
    // further than a wrap could explain in a second (a reset: it counts from zero again).
    void energyCounterWithItsResolution() {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        auto g = gpu0();
        g.energyAccumulator = 4294000000ull;
        FakeAmdGpuTree::build(root, {g, gpu1()});
        const std::vector<std::uint64_t> next = {4294900000ull, 50000ull, 30000ull};
        const auto p = probe(dir.path(), {"--cycle-ms", "1000", "--step-stdin", "--cycles", "4"},
                             [&](QProcess& proc) {
                                 for (const auto count : next) {
                                     while (!proc.canReadLine() && proc.waitForReadyRead(20000)) {
                                     }
                                     QVERIFY(proc.readLine().startsWith("cycle "));
                                     g.energyAccumulator = count;
                                     FakeAmdGpuTree::writeGpuMetrics(root, g);
                                     proc.write("go\n");
                                 }
                             });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QCOMPARE(p.out["cycles"].size(), std::size_t(4));
        const double resolutionUj = 15.3f;
        const std::uint64_t wrap = 1ull << 32;
        const std::vector<std::uint64_t> counts = {
            4294000000ull, 4294900000ull,
            4294900000ull + (wrap - 4294900000ull + 50000ull), // wrapped: 117296 counts, 1.8 J
            wrap + 50000ull + 30000ull};                       // reset: 30000 counts since
        for (std::size_t c = 0; c < counts.size(); ++c) {
            const auto r = cycle(p, c);
            QCOMPARE(r.at("gpu/0/energy_j"), static_cast<double>(counts[c]) * resolutionUj / 1e6);
            QVERIFY(r.count("gpu/1/energy_j") == 0); // no gpu_metrics: absent, not zero
        }
        QCOMPARE(cycle(p, 0).at("gpu/0/energy_j"), 65698.2008190155); // 4.294e9 x 15.3f uJ
    }

    // The PCI core's current_link_speed / max_link_speed: "16.0 GT/s PCIe" since Linux 5.x,
    // "8 GT/s" before; a link the kernel cannot decode is "Unknown" ("Unknown speed" before).
    void linkSpeedAsTheKernelPrintsIt() {
        QCOMPARE(AmdRocmSmi::parseLinkSpeed("16.0 GT/s PCIe").value_or(-1), 16.0);
        QCOMPARE(AmdRocmSmi::parseLinkSpeed("2.5 GT/s PCIe").value_or(-1), 2.5);
        QCOMPARE(AmdRocmSmi::parseLinkSpeed("8 GT/s").value_or(-1), 8.0);
        QVERIFY(!AmdRocmSmi::parseLinkSpeed("Unknown"));
        QVERIFY(!AmdRocmSmi::parseLinkSpeed("Unknown speed"));
        QVERIFY(!AmdRocmSmi::parseLinkSpeed(""));
    }

    // rocm-smi's process table to each GPU's processes. rocm-smi-lib is linked, and its process
    // calls read the KFD's own files, so this tests the merge on the values the calls return.
    void computeProcessesByDevice() {
        const std::vector<AmdRocmSmi::ComputeProcess> processes = {
            {4242, 8'000'000'000ull, {1}},  // one GPU: its VRAM is that GPU's
            {77, 6'000'000'000ull, {0, 1}}, // two: rocm-smi gives the sum only
            {91, std::nullopt, {0}},        // the per-pid call failed: VRAM absent
            {13, 1'000'000ull, {}},         // its GPUs unknown: on no GPU
            {55, 2'000'000ull, {7}}};       // an index this machine does not have
        const auto byDevice = AmdRocmSmi::processesByDevice(processes, 2);
        QCOMPARE(byDevice.size(), std::size_t(2));
        QCOMPARE(byDevice[0].size(), std::size_t(2));
        QCOMPARE(byDevice[0][0].pid, 77u);
        QVERIFY(!byDevice[0][0].vramBytes); // absent, not the sum and not 0
        QCOMPARE(byDevice[0][1].pid, 91u);
        QVERIFY(!byDevice[0][1].vramBytes);
        QCOMPARE(byDevice[1].size(), std::size_t(2));
        QCOMPARE(byDevice[1][0].pid, 4242u);
        QCOMPARE(byDevice[1][0].vramBytes, std::optional<double>(8e9));
        QVERIFY(byDevice[1][0].compute && !byDevice[1][0].graphics);
        QVERIFY(!byDevice[1][0].name); // names are read later, from /proc
        QCOMPARE(byDevice[1][1].pid, 77u);
    }

    void identityInDeviceTable() {
        QTemporaryDir dir;
        FakeAmdGpuTree::build(dir.path().toStdString(), {gpu0(), gpu1()});
        const auto p = probe(dir.path(), {"--cycles", "0"});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        std::map<std::string, nlohmann::json> gpus;
        for (const auto& d : p.out["devices"])
            if (d["kind"] == "gpu")
                gpus[d["name"].get<std::string>()] = d["attrs"];
        QCOMPARE(gpus.size(), std::size_t(2));
        const auto& a = gpus.at("gpu0");
        QCOMPARE(a["vendor"].get<std::string>(), std::string("amd"));
        QCOMPARE(a["bus"].get<std::string>(), std::string("0000:03:00.0"));
        QCOMPARE(a["device_id"].get<std::string>(), std::string("0x74a1"));
        QCOMPARE(a["unique_id"].get<std::string>(), std::string("0x1234abcd5678ef00"));
        QCOMPARE(a["serial"].get<std::string>(), std::string("692251840010"));
        QCOMPARE(a["vram_total_bytes"].get<double>(), 206158430208.0);
        QVERIFY(!a["model"].get<std::string>().empty());
        QCOMPARE(a["compute_partition"].get<std::string>(), std::string("CPX"));
        QCOMPARE(a["memory_partition"].get<std::string>(), std::string("NPS4"));
        QCOMPARE(a["pcie_link_width_max"].get<double>(), 16.0);
        QCOMPARE(a["pcie_link_speed_max_gts"].get<double>(), 32.0);
        QCOMPARE(gpus.at("gpu1")["bus"].get<std::string>(), std::string("0000:83:00.0"));
        // No partition files (a GPU that cannot be partitioned): no attribute, not a mode.
        QVERIFY(!gpus.at("gpu1").contains("compute_partition"));
        QVERIFY(!gpus.at("gpu1").contains("memory_partition"));
    }

    void suspendedGpuIsReportedAndNeverPolled() {
        QTemporaryDir dir;
        auto sleeping = gpu1();
        sleeping.suspended = true;
        FakeAmdGpuTree::build(dir.path().toStdString(), {gpu0(), sleeping});
        const std::string device = FakeAmdGpuTree::deviceDir(dir.path().toStdString(), sleeping);
        const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        QVERIFY(watch >= 0);
        const auto p = probe(dir.path(), {"--wait-stdin", "--cycles", "3"}, [&](QProcess& proc) {
            QVERIFY(proc.waitForReadyRead(20000));
            QCOMPARE(proc.readLine().trimmed(), QByteArray("ready"));
            // From here on, any open of the sleeping GPU's attributes would wake it.
            inotify_add_watch(watch, device.c_str(), IN_OPEN | IN_ACCESS);
            inotify_add_watch(watch, (device + "/hwmon/hwmon1").c_str(), IN_OPEN | IN_ACCESS);
            proc.write("go\n");
        });
        QVERIFY2(p.exitCode == 0, p.err.constData());
        char events[4096];
        const ssize_t n = read(watch, events, sizeof events);
        close(watch);
        QVERIFY2(n <= 0, "the suspended GPU's sysfs attributes were opened while sampling");
        for (std::size_t c = 0; c < 3; ++c) {
            const auto r = cycle(p, c);
            QCOMPARE(r.at("gpu/1/suspended"), 1.0);
            for (const auto& [path, value] : r)
                QVERIFY2(!path.starts_with("gpu/1/") || path == "gpu/1/suspended", path.c_str());
            QCOMPARE(r.at("gpu/0/busy_pct"), 37.0);
        }
        for (const auto& d : p.out["devices"])
            if (d["name"] == "gpu1")
                QCOMPARE(d["attrs"]["power_state"].get<std::string>(), std::string("suspended"));
    }

    void pcieReadRunsOnItsOwnThread() {
        QTemporaryDir dir;
        FakeAmdGpuTree::build(dir.path().toStdString(), {gpu0()});
        // Every pcie_bw read now blocks for 4 s (a second on real hardware), so a reading held
        // behind it would be late by seconds, far beyond any lateness of a busy machine.
        QProcessEnvironment slow;
        slow.insert("TIERSCOPE_TEST_PCIE_DELAY_MS", "4000");
        const auto p = probe(dir.path(), {"--schedule", "10"}, {}, SLOW_PCIE_BW, slow);
        QVERIFY2(p.exitCode == 0, p.err.constData());
        std::vector<std::int64_t> busyTimes, pcieTimes;
        for (const auto& s : p.out["scheduled"]) {
            if (s["path"] == "gpu/0/busy_pct")
                busyTimes.push_back(s["t"].get<std::int64_t>());
            if (s["path"] == "gpu/0/pcie_bytes_per_s") {
                pcieTimes.push_back(s["t"].get<std::int64_t>());
                QCOMPARE(s["value"].get<double>(), 768000.0);
            }
        }
        // At most three slow reads fit in 10 s; they happen on the PCIe collector's own thread.
        QVERIFY2(!pcieTimes.empty() && pcieTimes.size() <= 3,
                 qPrintable(QString::number(pcieTimes.size())));
        // 10 s at 100 ms: the blocked PCIe read must not hold back the other readings. Held
        // behind it, they would come once per 4 s; a quarter of the ticks is far above that.
        QVERIFY2(busyTimes.size() >= 25, qPrintable(QString::number(busyTimes.size())));
        std::int64_t worstGap = 0;
        for (std::size_t i = 1; i < busyTimes.size(); ++i)
            worstGap = std::max(worstGap, busyTimes[i] - busyTimes[i - 1]);
        QVERIFY2(worstGap < 2'000'000'000, qPrintable(QString("gap %1 ms").arg(worstGap / 1e6)));
    }

    void noKfdIsAReportedState() {
        QTemporaryDir dir; // an empty /sys/class: no DRM, no KFD
        const auto p = probe(dir.path(), {"--cycles", "1"});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const auto amd = status(p, "amd");
        QCOMPARE(amd["available"].get<bool>(), false);
        QVERIFY(amd["reason"].get<std::string>().find("no KFD") != std::string::npos);
        QVERIFY(amd["summary"].get<std::string>().starts_with(
            "AMD backend unavailable: rocm-smi not started (no KFD"));
        QVERIFY(p.out["cycles"][0].empty());
        // rocm-smi's own "Failed to open drm root directory" never reaches the terminal.
        QVERIFY2(!p.err.contains("Failed to open"), p.err.constData());
        for (const auto& line : p.err.trimmed().split('\n'))
            QVERIFY2(line.startsWith("tierscope: "), line.constData());
        QVERIFY(p.err.contains("AMD backend unavailable")); // our one log line instead
    }

    void libraryAbortDoesNotKillTheRecorder() {
        QTemporaryDir dir;
        FakeAmdGpuTree::buildBrokenTopology(dir.path().toStdString());
        const auto p = probe(dir.path(), {"--cycles", "1"});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const auto reason = status(p, "amd")["reason"].get<std::string>();
        QVERIFY2(reason.find("crashed") != std::string::npos, reason.c_str());
        // The library's assertion text reaches the user only inside our own one-line reason.
        for (const auto& line : p.err.trimmed().split('\n'))
            QVERIFY2(line.startsWith("tierscope: "), line.constData());
    }

    // The probe runs in a forked child; one that never answers is stopped, and the recorder
    // goes on without AMD GPUs, saying why.
    void aProbeThatNeverAnswersIsStopped() {
        QTemporaryDir dir;
        FakeAmdGpuTree::buildHangingTopology(dir.path().toStdString());
        const auto p = probe(dir.path(), {"--cycles", "1"});
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const auto amd = status(p, "amd");
        QCOMPARE(amd["available"].get<bool>(), false);
        const auto reason = amd["reason"].get<std::string>();
        QVERIFY2(reason.find("did not finish initialising within 10 s") != std::string::npos,
                 reason.c_str());
        QCOMPARE(p.out["cycles"].size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestAmdGpu)
#include "tst_amdgpu.moc"
