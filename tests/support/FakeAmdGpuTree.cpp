#include "FakeAmdGpuTree.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <rocm_smi/rocm_smi.h>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace tierscope::test {

namespace {

void put(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text << "\n";
}

unsigned locationId(const std::string& busId) {
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    std::sscanf(busId.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn);
    return (bus << 8) | (dev << 3) | fn;
}

void kfdNode(const fs::path& nodes, int index, unsigned location, unsigned gpuId, int renderMinor) {
    const fs::path n = nodes / std::to_string(index);
    for (const char* sub : {"io_links", "mem_banks", "caches"})
        fs::create_directories(n / sub);
    const bool cpu = gpuId == 0;
    put(n / "properties",
        std::string(cpu ? "cpu_cores_count 2\nsimd_count 0\n"
                        : "cpu_cores_count 0\nsimd_count 1216\n") +
            "mem_banks_count 1\ncaches_count 0\nio_links_count 0\ngfx_target_version " +
            (cpu ? "0" : "90402") + "\nsimd_arrays_per_engine " + (cpu ? "0" : "2") +
            "\narray_count " + (cpu ? "0" : "8") + "\ncu_per_simd_array " + (cpu ? "0" : "19") +
            "\nlocation_id " + std::to_string(location) + "\ndomain 0\ndrm_render_minor " +
            std::to_string(renderMinor) + "\nhive_id 0\nvendor_id " + (cpu ? "0" : "4098") +
            "\ndevice_id " + (cpu ? "0" : "29857") + "\nunique_id 0");
    put(n / "gpu_id", std::to_string(gpuId));
    put(n / "name", cpu ? "" : "gfx942");
}

void gpuMetrics(const fs::path& path, const FakeAmdGpu& gpu) {
    rsmi_gpu_metrics_t m{};
    m.common_header.structure_size = sizeof m;
    m.common_header.format_revision = 1;
    m.common_header.content_revision = 1;
    m.average_gfx_activity = gpu.gfxActivity.value_or(0xffff);
    m.average_umc_activity = gpu.umcActivity.value_or(0xffff);
    m.throttle_status = gpu.throttleStatus.value_or(0xffffffff);
    m.energy_accumulator = gpu.energyAccumulator.value_or(UINT64_MAX);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(&m), sizeof m);
}

} // namespace

std::string FakeAmdGpuTree::deviceDir(const std::string& root, const FakeAmdGpu& gpu) {
    return root + "/devices/pci0000:00/" + gpu.busId;
}

void FakeAmdGpuTree::writeGpuMetrics(const std::string& root, const FakeAmdGpu& gpu) {
    gpuMetrics(fs::path(deviceDir(root, gpu)) / "gpu_metrics", gpu);
}

void FakeAmdGpuTree::build(const std::string& root, const std::vector<FakeAmdGpu>& gpus) {
    const fs::path r(root);
    fs::create_directories(r / "drm");
    fs::create_directories(r / "hwmon");
    const fs::path nodes = r / "kfd/kfd/topology/nodes";
    kfdNode(nodes, 0, 0, 0, 0);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const auto& g = gpus[i];
        const std::string card = "card" + std::to_string(i);
        const std::string hw = "hwmon" + std::to_string(i);
        const fs::path d = deviceDir(root, g);
        fs::create_directories(d / "drm" / card);
        fs::create_directories(d / "hwmon" / hw);
        // Shaped like the kernel's links (device -> ../../../<bus id>), and kept inside the tree
        // so they resolve under the bind mount.
        fs::create_directory_symlink("../devices/pci0000:00/" + g.busId + "/drm/" + card,
                                     r / "drm" / card);
        fs::create_directory_symlink("../../../" + g.busId, d / "drm" / card / "device");
        fs::create_directory_symlink("../devices/pci0000:00/" + g.busId + "/hwmon/" + hw,
                                     r / "hwmon" / hw);
        fs::create_directory_symlink("../../../" + g.busId, d / "hwmon" / hw / "device");
        put(d / "vendor", "0x1002");
        put(d / "device", "0x74a1");
        put(d / "subsystem_vendor", "0x1002");
        put(d / "subsystem_device", "0x74a1");
        put(d / "revision", "0x00");
        put(d / "vbios_version", "113-D65201-042");
        put(d / "product_name", "AMD Instinct MI300X");
        put(d / "gpu_busy_percent", std::to_string(g.busyPct));
        if (g.memBusyPct)
            put(d / "mem_busy_percent", std::to_string(*g.memBusyPct));
        put(d / "mem_info_vram_used", std::to_string(g.vramUsed));
        put(d / "mem_info_vram_total", std::to_string(g.vramTotal));
        put(d / "mem_info_gtt_used", std::to_string(g.gttUsed));
        put(d / "mem_info_gtt_total", "536870912000");
        const std::string pcie = std::to_string(g.pcieSent) + " " + std::to_string(g.pcieReceived) +
                                 " " + std::to_string(g.pcieMaxPayload);
        put(d / "pcie_bw", pcie);
        put(d / "unique_id", g.uniqueId);
        put(d / "serial_number", g.serial);
        put(d / "power/runtime_status", g.suspended ? "suspended" : "active");
        if (g.gfxActivity || g.umcActivity || g.throttleStatus || g.energyAccumulator)
            gpuMetrics(d / "gpu_metrics", g);
        for (const auto& [name, text] :
             {std::pair{"current_link_speed", &g.linkSpeed},
              std::pair{"max_link_speed", &g.maxLinkSpeed},
              std::pair{"current_link_width", &g.linkWidth},
              std::pair{"max_link_width", &g.maxLinkWidth},
              std::pair{"current_compute_partition", &g.computePartition},
              std::pair{"current_memory_partition", &g.memoryPartition}})
            if (!text->empty())
                put(d / name, *text);
        const fs::path h = d / "hwmon" / hw;
        put(h / "name", "amdgpu");
        put(h / "in0_label", "vddgfx");
        put(h / "in0_input", "800");
        put(h / "power1_average", std::to_string(g.powerMicrowatts));
        put(h / "temp1_input", std::to_string(g.edgeMilliC));
        put(h / "temp1_label", "edge");
        put(h / "temp2_input", std::to_string(g.junctionMilliC));
        put(h / "temp2_label", "junction");
        kfdNode(nodes, static_cast<int>(i) + 1, locationId(g.busId),
                41234 + static_cast<unsigned>(i), 128 + static_cast<int>(i));
    }
}

void FakeAmdGpuTree::buildBrokenTopology(const std::string& root) {
    build(root, {{"0000:03:00.0"}});
    fs::remove_all(fs::path(root) / "kfd/kfd/topology/nodes/0/io_links");
}

void FakeAmdGpuTree::buildHangingTopology(const std::string& root) {
    build(root, {{"0000:03:00.0"}});
    // A FIFO nobody writes: opening it blocks, as a sysfs read behind a wedged driver does.
    const fs::path vendor = fs::path(deviceDir(root, {"0000:03:00.0"})) / "vendor";
    fs::remove(vendor);
    mkfifo(vendor.c_str(), 0644);
}

} // namespace tierscope::test
