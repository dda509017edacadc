#include "TestSupport.h"
#include "collectors/gpu/GpuProcessReader.h"
#include "collectors/gpu/NvidiaGpuCollector.h"

#include <QFile>
#include <dlfcn.h>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace tierscope;

// NVML through the real dlopen path, against fake libraries with known values.
class TestNvml : public QObject {
    Q_OBJECT
  private:
    static std::map<std::string, double> sampleOnce(const std::string& library) {
        GpuBackendStatus status;
        auto nvml = NvidiaNvml::open(library, status);
        if (!nvml)
            qFatal("%s", status.summary().c_str());
        NvidiaGpuCollector collector(nvml, 2);
        std::map<std::string, double> out;
        for (const auto& r : collector.sample(0))
            out[r.metric.path] = r.value;
        return out;
    }

    // The GPU process lists of one fake library, read as the GUI's GPU panel reads them; no
    // KFD under the system root, so no AMD GPU shifts the NVIDIA numbering.
    static GpuProcessSnapshot processesOf(const char* library) {
        GpuBackends::Libraries libraries;
        libraries.nvml = library;
        libraries.dcmi = {"/nonexistent/libdcmi.so"};
        GpuProcessReader reader({"/proc", "/nonexistent-sys"}, libraries);
        return reader.read();
    }

    // GPU 0's list as the fake library gives it, whichever entry points it has.
    static void checkFakeProcesses(const GpuProcessSnapshot& s) {
        QCOMPARE(s.gpus.size(), std::size_t(2));
        const auto& gpu0 = s.gpus[0];
        QCOMPARE(gpu0.index, 0);
        QCOMPARE(gpu0.vendor, std::string("nvidia"));
        QCOMPARE(gpu0.busId, std::string("00000000:17:00.0"));
        QVERIFY2(gpu0.processes, gpu0.reason.c_str());
        const auto& p = *gpu0.processes;
        QCOMPARE(p.size(), std::size_t(3));
        // The largest first. This process: on both lists, its one allocation seen as 2 GiB
        // (compute) and 1.5 GiB (graphics): the larger, not the sum; its name from /proc.
        QCOMPARE(p[0].pid, static_cast<std::uint32_t>(getpid()));
        QCOMPARE(p[0].vramBytes, std::optional<double>(2147483648.0));
        QCOMPARE(p[0].name, std::optional<std::string>("tst_nvml"));
        QVERIFY(p[0].compute && p[0].graphics);
        // A pid no process can have: its pid and VRAM stay, its name is absent, not "".
        QCOMPARE(p[1].pid, 4194304u);
        QCOMPARE(p[1].vramBytes, std::optional<double>(1073741824.0));
        QVERIFY(!p[1].name);
        // NVML_VALUE_NOT_AVAILABLE: VRAM absent, not 18 EB and not 0.
        QCOMPARE(p[2].pid, 4194305u);
        QVERIFY(!p[2].vramBytes);
        QVERIFY(!p[2].compute && p[2].graphics);
        // GPU 1 answers NVML_ERROR_NOT_SUPPORTED: no list, and why.
        QVERIFY(!s.gpus[1].processes);
        QVERIFY2(s.gpus[1].reason.find("Not Supported") != std::string::npos,
                 s.gpus[1].reason.c_str());
        QCOMPARE(s.statuses.size(), std::size_t(3));
        QCOMPARE(s.statuses[0].backend, std::string("amd"));
        QVERIFY(!s.statuses[0].available);
        QVERIFY(s.statuses[1].available);
    }

  private slots:
    void runningProcessesThroughDlopen() {
        const auto s = processesOf(FAKE_NVML);
        checkFakeProcesses(s);
        QCOMPARE(s.gpus[1].reason,
                 std::string("nvmlDeviceGetComputeRunningProcesses_v3: Not Supported"));
    }

    // Drivers before R450 have only the unversioned entry points and the two-field struct.
    void runningProcessesFromTheV1Layout() {
        const auto s = processesOf(FAKE_NVML_V1);
        checkFakeProcesses(s);
        QCOMPARE(s.gpus[1].reason,
                 std::string("nvmlDeviceGetComputeRunningProcesses: Not Supported"));
    }

    // More processes than the first buffer holds: NVML says how many, and all come back.
    void runningProcessesBeyondTheFirstBuffer() {
        GpuBackendStatus status;
        auto nvml = NvidiaNvml::open(FAKE_NVML, status);
        QVERIFY2(nvml, status.summary().c_str());
        void* fake = dlopen(FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
        QVERIFY(fake);
        auto* setExtra =
            reinterpret_cast<void (*)(unsigned)>(dlsym(fake, "fakeNvmlSetExtraProcesses"));
        QVERIFY(setExtra);
        setExtra(40);
        const auto running = nvml->runningProcesses(nvml->devices()[0]);
        setExtra(0);
        dlclose(fake);
        QVERIFY2(running.list, running.reason.c_str());
        QCOMPARE(running.list->size(), std::size_t(43)); // 42 compute, 1 more graphics only
        QCOMPARE(running.list->back().pid, 4194305u);
    }

    // A driver older than the process calls: the GPU's figures still come, its processes are
    // absent with the reason.
    void missingProcessCallsAreAReason() {
        const auto s = processesOf(FAKE_NVML_NOPROC);
        QCOMPARE(s.gpus.size(), std::size_t(2));
        QVERIFY(!s.gpus[0].processes);
        QCOMPARE(s.gpus[0].reason,
                 std::string(FAKE_NVML_NOPROC) + " lacks nvmlDeviceGetComputeRunningProcesses");
        QCOMPARE(sampleOnce(FAKE_NVML_NOPROC).at("gpu/2/busy_pct"), 63.0);
    }

    void knownValuesThroughDlopen() {
        GpuBackendStatus status;
        auto nvml = NvidiaNvml::open(FAKE_NVML, status);
        QVERIFY2(nvml, status.summary().c_str());
        QVERIFY(status.available);
        QCOMPARE(status.detail, std::string("2 GPU(s) via ") + FAKE_NVML);
        QVERIFY(nvml->usesMemoryV2());
        NvidiaGpuCollector collector(nvml, 2); // after two AMD GPUs: numbered 2 and 3
        std::map<std::string, Reading> r;
        for (const auto& reading : collector.sample(0))
            r.emplace(reading.metric.path, reading);
        QCOMPARE(r.at("gpu/2/busy_pct").value, 63.0);
        QCOMPARE(r.at("gpu/2/mem_busy_pct").value, 21.0);
        QCOMPARE(r.at("gpu/2/vram_used_bytes").value, 42949672960.0); // v2: reserved not counted
        QCOMPARE(r.at("gpu/2/vram_total_bytes").value, 85899345920.0);
        QCOMPARE(r.at("gpu/2/pcie_tx_bytes_per_s").value, 1000.0 * 1024);
        QCOMPARE(r.at("gpu/2/pcie_rx_bytes_per_s").value, 2000.0 * 1024);
        QCOMPARE(r.at("gpu/2/power_w").value, 250.0);
        QCOMPARE(r.at("gpu/2/temp_c").value, 55.0);
        QCOMPARE(r.at("gpu/3/busy_pct").value, 5.0);
        QCOMPARE(r.at("gpu/3/temp_c").value, 41.0);
        // NVML_ERROR_NOT_SUPPORTED: absent, not zero.
        QVERIFY(r.count("gpu/3/power_w") == 0);
        QVERIFY(r.count("gpu/3/pcie_tx_bytes_per_s") == 0);
        // Clock event reasons: GPU 2 held at its software power cap, GPU 3 only idle.
        QCOMPARE(r.at("gpu/2/throttle_reasons").value, 4.0);
        QCOMPARE(r.at("gpu/2/throttled").value, 1.0);
        QCOMPARE(r.at("gpu/3/throttle_reasons").value, 1.0);
        QCOMPARE(r.at("gpu/3/throttled").value, 0.0);
        // The PCIe link, generations as GT/s.
        QCOMPARE(r.at("gpu/2/pcie_link_width").value, 16.0);
        QCOMPARE(r.at("gpu/2/pcie_link_width_max").value, 16.0);
        QCOMPARE(r.at("gpu/2/pcie_link_speed_gts").value, 16.0);
        QCOMPARE(r.at("gpu/2/pcie_link_speed_max_gts").value, 32.0);
        QCOMPARE(r.at("gpu/2/pcie_link_speed_gts").metric.unit, std::string("GT/s"));
        QCOMPARE(r.at("gpu/3/pcie_link_width").value, 8.0);
        QCOMPARE(r.at("gpu/3/pcie_link_speed_gts").value, 32.0);
        const auto labels = nlohmann::json::parse(r.at("gpu/3/busy_pct").metric.labels);
        QCOMPARE(labels["bus"].get<std::string>(), std::string("00000000:2A:00.0"));
        QCOMPARE(labels["model"].get<std::string>(), std::string("NVIDIA H100 80GB HBM3"));

        const auto devices = collector.devices();
        QCOMPARE(devices.size(), std::size_t(2));
        QCOMPARE(devices[0].name, std::string("gpu2"));
        const auto gpu2 = nlohmann::json::parse(devices[0].attrs);
        QCOMPARE(gpu2["bus"].get<std::string>(), std::string("00000000:17:00.0"));
        QCOMPARE(gpu2["pcie_link_width_max"].get<unsigned>(), 16u);
        QCOMPARE(gpu2["pcie_link_speed_max_gts"].get<double>(), 32.0);
        QCOMPARE(gpu2["gpu_pcie_link_speed_max_gts"].get<double>(), 32.0);
        // NVML_ERROR_NOT_SUPPORTED for GPU 3's own maximum: no attribute.
        QVERIFY(!nlohmann::json::parse(devices[1].attrs).contains("gpu_pcie_link_speed_max_gts"));
    }

    // NVML's energy counter, millijoules since the driver loaded, becomes gpu/<n>/energy_j in
    // joules, a counter series that never goes down: when the driver reloads NVML counts from
    // zero again, and the series adds what it counted since.
    void energyCounterInJoules() {
        GpuBackendStatus status;
        auto nvml = NvidiaNvml::open(FAKE_NVML, status);
        QVERIFY2(nvml, status.summary().c_str());
        void* fake = dlopen(FAKE_NVML, RTLD_NOW | RTLD_NOLOAD); // the library NVML loaded
        QVERIFY(fake);
        auto* setEnergy =
            reinterpret_cast<void (*)(unsigned long long)>(dlsym(fake, "fakeNvmlSetEnergy"));
        QVERIFY(setEnergy);
        NvidiaGpuCollector collector(nvml, 0);
        constexpr std::int64_t kSecond = 1'000'000'000;
        std::vector<double> joules;
        for (const auto& [t, millijoules] : {std::pair{0LL, 1000000500ull},
                                             {1LL, 1000250750ull},
                                             {2LL, 2000ull},
                                             {3LL, 3500ull}}) {
            setEnergy(millijoules);
            for (const auto& r : collector.sample(t * kSecond)) {
                QVERIFY(r.metric.path != "gpu/1/energy_j"); // not supported: absent, not zero
                if (r.metric.path != "gpu/0/energy_j")
                    continue;
                QCOMPARE(r.metric.unit, std::string("J"));
                QCOMPARE(r.metric.kind, std::string("counter"));
                QVERIFY(!nlohmann::json::parse(r.metric.labels).contains("integrated"));
                joules.push_back(r.value);
            }
        }
        dlclose(fake);
        // The counter's own value first; then +250.25 J; then the driver reloaded and counted
        // 2 J since; then 1.5 J more.
        QCOMPARE(joules, (std::vector<double>{1000000.5, 1000250.75, 1000252.75, 1000254.25}));
    }

    void olderLibraryFallsBackToMemoryV1() {
        const auto r = sampleOnce(FAKE_NVML_V1);
        QCOMPARE(r.at("gpu/2/vram_used_bytes"), 42949672960.0 + 536870912.0);
        QCOMPARE(r.at("gpu/2/busy_pct"), 63.0);
        // Drivers before NVML 12.2 name the clocks event reasons "throttle reasons".
        QCOMPARE(r.at("gpu/2/throttle_reasons"), 4.0);
        QCOMPARE(r.at("gpu/2/throttled"), 1.0);
    }

    void missingFunctionIsAReason() {
        GpuBackendStatus status;
        QVERIFY(!NvidiaNvml::open(FAKE_NVML_NOINIT, status));
        QCOMPARE(status.available, false);
        QCOMPARE(status.reason, std::string(FAKE_NVML_NOINIT) + " lacks nvmlInit_v2");
    }

    void missingLibraryIsAReason() {
        if (void* real = dlopen("libnvidia-ml.so.1", RTLD_NOW)) {
            dlclose(real);
            QSKIP("this machine has a real libnvidia-ml.so.1");
        }
        GpuBackendStatus status;
        QVERIFY(!NvidiaNvml::open("libnvidia-ml.so.1", status));
        QCOMPARE(status.summary(),
                 std::string("NVIDIA backend unavailable: libnvidia-ml.so.1 not found"));
        QCOMPARE(nlohmann::json::parse(status.toDeviceRecord().attrs)["state"].get<std::string>(),
                 std::string("unavailable"));
    }
};

QTEST_GUILESS_MAIN(TestNvml)
#include "tst_nvml.moc"
