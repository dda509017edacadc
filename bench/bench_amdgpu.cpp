// AMD collector cost: CPU time of one AmdGpuCollector cycle over 8 GPUs (the PCIe reading,
// which has its own thread, is left out), with the real rocm-smi-lib reading a fake sysfs and
// KFD tree in a private mount namespace. Baseline in the same run: reading the same sysfs
// attribute files directly, which is the floor for any collector of these values.
// The fake tree lives on an ordinary filesystem; real sysfs attributes that query the SMU cost
// more per read, for the collector and the baseline alike.
#include "BenchSupport.h"
#include "collectors/gpu/AmdGpuCollector.h"
#include "collectors/base/SysfsAttribute.h"
#include "collectors/base/SysfsReader.h"
#include "core/util/Logging.h"
#include "support/FakeAmdGpuTree.h"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>

using namespace tierscope;

namespace {

int measure(int cycles) {
    GpuBackendStatus status;
    auto smi = AmdRocmSmi::open({}, status);
    if (!smi) {
        std::fprintf(stderr, "bench_amdgpu: %s\n", status.summary().c_str());
        return 1;
    }
    AmdGpuCollector collector(smi, 0);
    std::size_t readings = 0;
    auto perCycleUs = [&](auto&& body) {
        std::vector<double> rounds;
        for (int round = 0; round < 5; ++round) {
            const double before = bench::threadCpuSeconds();
            for (int i = 0; i < cycles; ++i)
                body();
            rounds.push_back((bench::threadCpuSeconds() - before) / cycles * 1e6);
        }
        return bench::median(rounds);
    };
    // Timestamps advance 100 ms per cycle, as at 10 Hz, so the once-a-second readings run on
    // every tenth cycle exactly as they would in a recording.
    std::int64_t t = 0;
    std::size_t total = 0;
    const double collectorUs = perCycleUs([&] {
        t += 100'000'000;
        const auto n = collector.sample(t).size();
        total += n;
        readings = std::max(readings, n);
    });
    static const char* kDeviceFiles[] = {
        "gpu_busy_percent",  "mem_busy_percent", "mem_info_vram_used",  "mem_info_vram_total",
        "mem_info_gtt_used", "gpu_metrics",      "power/runtime_status"};
    static const char* kHwmonFiles[] = {"power1_average", "temp1_input", "temp2_input"};
    std::vector<std::string> files;
    for (int g = 0; g < 8; ++g) {
        const std::string dev = "/sys/class/drm/card" + std::to_string(g) + "/device/";
        for (const char* f : kDeviceFiles)
            files.push_back(dev + f);
        for (const char* f : kHwmonFiles)
            files.push_back(dev + "hwmon/hwmon" + std::to_string(g) + "/" + f);
    }
    const double baselineUs = perCycleUs([&] {
        for (const auto& f : files)
            SysfsReader::readFile(f);
    });
    std::printf(
        "bench_amdgpu: AmdGpuCollector over 8 fake GPUs (rocm-smi-lib 5.2.3), %d cycles x 5 rounds "
        "at 10 Hz timestamps, %.1f readings per cycle (%zu on a once-a-second cycle)\n",
        cycles, static_cast<double>(total) / (5.0 * cycles), readings);
    std::printf("  collector: %.1f us CPU per cycle = %.3f %% of one core at 10 Hz\n", collectorUs,
                collectorUs * 10 / 1e6 * 100);
    std::printf(
        "  baseline, open+read+close of all %zu attribute files every cycle: %.1f us per cycle\n",
        files.size(), baselineUs);
    std::printf("  ratio collector / direct-read baseline: %.2f\n", collectorUs / baselineUs);
    // The alternative rocm-smi's API rules out: keep every attribute open and pread it, with
    // the same once-a-second tier for the slow ones.
    std::vector<SysfsAttribute> fast, slowAttrs;
    for (int g = 0; g < 8; ++g) {
        const std::string dev = "/sys/class/drm/card" + std::to_string(g) + "/device/";
        const std::string hw = dev + "hwmon/hwmon" + std::to_string(g) + "/";
        for (const char* f : {"gpu_busy_percent", "mem_busy_percent", "mem_info_vram_used",
                              "gpu_metrics", "power/runtime_status"})
            fast.emplace_back(dev + f);
        fast.emplace_back(hw + "power1_average");
        for (const char* f : {"temp1_input", "temp2_input"})
            slowAttrs.emplace_back(hw + f);
        slowAttrs.emplace_back(dev + "mem_info_gtt_used");
    }
    int cycle = 0;
    const double cachedUs = perCycleUs([&] {
        for (auto& a : fast)
            a.read();
        if (cycle++ % 10 == 0)
            for (auto& a : slowAttrs)
                a.read();
    });
    std::printf("  for comparison, the same tiers read through open descriptors (pread): %.1f us "
                "per cycle = %.3f %% at 10 Hz\n",
                cachedUs, cachedUs * 10 / 1e6 * 100);
    std::printf("  per reading, 8 GPUs:");
    const std::pair<const char*, std::function<void(const AmdRocmSmi::Device&)>> calls[] = {
        {"busy", [&](const auto& d) { smi->busyPct(d); }},
        {"mem_busy", [&](const auto& d) { smi->memoryBusyPct(d); }},
        {"vram_used", [&](const auto& d) { smi->vramUsedBytes(d); }},
        {"power", [&](const auto& d) { smi->averagePowerW(d); }},
        {"gpu_metrics", [&](const auto& d) { smi->activity(d); }},
        {"temp_edge", [&](const auto& d) { smi->edgeTempC(d); }},
        {"suspended", [&](const auto& d) { smi->suspended(d); }}};
    for (const auto& [name, call] : calls) {
        const double us = perCycleUs([&] {
            for (const auto& d : smi->devices())
                call(d);
        });
        std::printf(" %s %.0f us,", name, us);
    }
    std::printf("\n");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Logging::toStderr("warn");
    const int cycles = argc > 1 ? std::atoi(argv[1]) : 500;
    if (cycles <= 0) {
        std::fprintf(stderr, "usage: bench_amdgpu [CYCLES > 0]\n");
        return 2;
    }
    if (std::getenv("TIERSCOPE_BENCH_IN_NAMESPACE"))
        return measure(cycles);

    // Build 8 GPUs, then re-run this program with the tree mounted over /sys/class.
    const std::string tree =
        std::filesystem::temp_directory_path() / ("bench-amdgpu-" + std::to_string(getpid()));
    std::vector<test::FakeAmdGpu> gpus;
    for (int g = 0; g < 8; ++g) {
        test::FakeAmdGpu gpu;
        char bus[16];
        std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 * (g + 1));
        gpu.busId = bus;
        gpu.busyPct = 10u * g;
        gpu.memBusyPct = 5u * g;
        gpu.vramUsed = 1ull << 34;
        gpu.vramTotal = 192ull << 30;
        gpu.gttUsed = 1ull << 30;
        gpu.powerMicrowatts = 500000000;
        gpu.edgeMilliC = 40000;
        gpu.junctionMilliC = 60000;
        gpu.pcieSent = 1;
        gpu.pcieReceived = 1;
        gpu.pcieMaxPayload = 256;
        gpu.gfxActivity = 50;
        gpu.umcActivity = 20;
        gpu.serial = "SN" + std::to_string(g);
        gpu.uniqueId = "0x" + std::to_string(1000 + g);
        gpus.push_back(gpu);
    }
    test::FakeAmdGpuTree::build(tree, gpus);
    const std::string self = std::filesystem::read_symlink("/proc/self/exe");
    const std::string command = "mount --bind '" + tree +
                                "' /sys/class && TIERSCOPE_BENCH_IN_NAMESPACE=1 exec '" + self +
                                "' " + std::to_string(cycles);
    const int rc = std::system(("unshare -Urm sh -c \"" + command + "\"").c_str());
    std::filesystem::remove_all(tree);
    return rc == 0 ? 0 : 1;
}
