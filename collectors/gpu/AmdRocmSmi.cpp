#include "collectors/gpu/AmdRocmSmi.h"

#include "collectors/base/StderrCapture.h"
#include "collectors/base/SysfsReader.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <regex>
#include <rocm_smi/rocm_smi.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tierscope {

namespace {

std::string statusText(rsmi_status_t status) {
    const char* text = nullptr;
    rsmi_status_string(status, &text);
    return text ? text : "status " + std::to_string(static_cast<int>(status));
}

// rsmi_init reads a few sysfs files per GPU: well under a second even with eight GPUs.
constexpr std::chrono::milliseconds kProbeTimeout{10'000};

struct ProbeResult {
    bool timedOut = false;
    bool crashed = false;
    int signal = 0;
    rsmi_status_t status = RSMI_STATUS_UNKNOWN_ERROR;
    std::uint32_t devices = 0;
    std::string stderrText;
};

enum class ReadEnd { Complete, Closed, TimedOut };

// Reads exactly `size` bytes, unless the writer closes first or `timeout` passes.
ReadEnd readWithin(int fd, void* buffer, std::size_t size, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto* out = static_cast<char*>(buffer);
    std::size_t done = 0;
    while (done < size) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        const int ready = left.count() > 0 ? poll(&p, 1, static_cast<int>(left.count())) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return ReadEnd::TimedOut;
        const ssize_t n = ready < 0 ? -1 : read(fd, out + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ReadEnd::Closed;
        done += static_cast<std::size_t>(n);
    }
    return ReadEnd::Complete;
}

// rsmi_init asserts (SIGABRT) on some malformed KFD topologies, and a monitoring tool must not
// die of that. So it runs first in a child process; only a clean result lets the parent call it.
ProbeResult probeInChild() {
    ProbeResult result;
    int pipeFds[2];
    const int errFd = memfd_create("rsmi-probe-stderr", MFD_CLOEXEC);
    if (errFd < 0 || pipe2(pipeFds, O_CLOEXEC) != 0) {
        result.stderrText = std::string("cannot probe rocm-smi: ") + std::strerror(errno);
        return result;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(errFd, STDERR_FILENO);
        int message[2] = {static_cast<int>(rsmi_init(0)), 0};
        std::uint32_t n = 0;
        if (message[0] == RSMI_STATUS_SUCCESS &&
            rsmi_num_monitor_devices(&n) == RSMI_STATUS_SUCCESS)
            message[1] = static_cast<int>(n);
        [[maybe_unused]] const auto written = write(pipeFds[1], message, sizeof message);
        _exit(0);
    }
    close(pipeFds[1]);
    int message[2] = {-1, 0};
    const ReadEnd end =
        pid > 0 ? readWithin(pipeFds[0], message, sizeof message, kProbeTimeout) : ReadEnd::Closed;
    const bool got = end == ReadEnd::Complete;
    close(pipeFds[0]);
    int wstatus = 0;
    // A child forked from a threaded process can deadlock on a lock another thread held at the
    // fork, and a library can block on a sysfs file: neither may hang the recorder.
    result.timedOut = end == ReadEnd::TimedOut;
    if (result.timedOut)
        kill(pid, SIGKILL);
    if (pid > 0)
        waitpid(pid, &wstatus, 0);
    result.crashed = pid > 0 && !result.timedOut && (WIFSIGNALED(wstatus) || !got);
    result.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    result.status = static_cast<rsmi_status_t>(message[0]);
    result.devices = static_cast<std::uint32_t>(message[1]);
    result.stderrText = StderrCapture::readAll(errFd);
    close(errFd);
    return result;
}

std::string unavailableReason(const ProbeResult& probe) {
    if (probe.timedOut)
        return "rocm-smi did not finish initialising within " +
               std::to_string(kProbeTimeout.count() / 1000) + " s (its probe was stopped)";
    std::string said = StderrCapture::lastLine(probe.stderrText);
    // An assert message starts with the whole function signature; the assertion is the news.
    if (const auto at = said.find("Assertion"); at != std::string::npos)
        said = said.substr(at);
    if (probe.crashed)
        return "rocm-smi-lib crashed while reading the GPU topology (signal " +
               std::to_string(probe.signal) + (said.empty() ? "" : ": " + said) + ")";
    if (probe.status != RSMI_STATUS_SUCCESS) {
        return "rocm-smi could not initialise (" + statusText(probe.status) +
               (said.empty() ? "" : "; " + said) + ")";
    }
    return "rocm-smi found no AMD GPU";
}

// "0000:03:00.0" -> rsmi's BDF id.
std::optional<std::uint64_t> bdfIdOf(const std::string& busId) {
    unsigned domain = 0, bus = 0, dev = 0, fn = 0;
    if (std::sscanf(busId.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
        return std::nullopt;
    return (static_cast<std::uint64_t>(domain) << 32) | (bus << 8) | ((dev & 0x1f) << 3) |
           (fn & 0x7);
}

} // namespace

std::shared_ptr<AmdRocmSmi> AmdRocmSmi::open(const SystemPaths& paths, GpuBackendStatus& status) {
    status = {"amd", "AMD", "GPU", false, "", ""};
    // Without the KFD there is no ROCm device to find, and nothing to fork for.
    if (!SysfsReader::exists(paths.sys + "/class/kfd/kfd/topology/nodes")) {
        status.reason = "rocm-smi not started (no KFD: " + paths.sys +
                        "/class/kfd is missing, the amdgpu driver is not loaded)";
        return nullptr;
    }
    const ProbeResult probe = probeInChild();
    if (!probe.stderrText.empty())
        spdlog::debug("rocm-smi (probe) said: {}", probe.stderrText);
    if (probe.crashed || probe.status != RSMI_STATUS_SUCCESS || probe.devices == 0) {
        status.reason = unavailableReason(probe);
        return nullptr;
    }
    rsmi_status_t init = RSMI_STATUS_UNKNOWN_ERROR;
    const std::string said = StderrCapture::run([&] { init = rsmi_init(0); });
    if (!said.empty())
        spdlog::debug("rocm-smi said: {}", said);
    if (init != RSMI_STATUS_SUCCESS) {
        status.reason = "rocm-smi could not initialise (" + statusText(init) + ")";
        return nullptr;
    }
    std::shared_ptr<AmdRocmSmi> smi(new AmdRocmSmi());
    smi->discoverDevices(paths);
    status.available = true;
    status.detail = std::to_string(smi->m_devices.size()) + " GPU(s) via rocm-smi-lib";
    return smi;
}

AmdRocmSmi::~AmdRocmSmi() {
    rsmi_shut_down();
}

void AmdRocmSmi::discoverDevices(const SystemPaths& paths) {
    // Map each DRM card to its PCI address, to find the runtime-PM state of each rsmi device.
    static const std::regex kCard("^card[0-9]+$");
    std::vector<std::pair<std::uint64_t, std::string>> cards; // BDF id -> card's device dir
    for (const auto& entry : SysfsReader::listDir(paths.sys + "/class/drm")) {
        if (!std::regex_match(entry, kCard))
            continue;
        const std::string device = paths.sys + "/class/drm/" + entry + "/device";
        char resolved[PATH_MAX] = {};
        if (!realpath(device.c_str(), resolved))
            continue;
        const std::string pciDir = resolved;
        const std::string busId = pciDir.substr(pciDir.find_last_of('/') + 1);
        if (const auto id = bdfIdOf(busId))
            cards.emplace_back(*id, device);
    }

    std::uint32_t count = 0;
    rsmi_num_monitor_devices(&count);
    for (std::uint32_t i = 0; i < count; ++i) {
        Device d;
        d.index = i;
        rsmi_dev_pci_id_get(i, &d.bdfId);
        char busId[32];
        std::snprintf(
            busId, sizeof busId, "%04x:%02x:%02x.%x", static_cast<unsigned>(d.bdfId >> 32),
            static_cast<unsigned>((d.bdfId >> 8) & 0xff),
            static_cast<unsigned>((d.bdfId >> 3) & 0x1f), static_cast<unsigned>(d.bdfId & 0x7));
        d.busId = busId;
        for (const auto& [id, dir] : cards) {
            if (id == d.bdfId)
                d.deviceDir = dir;
        }
        // Identity reads go through the driver, which can resume a suspended GPU: skip them.
        if (suspended(d)) {
            m_devices.push_back(std::move(d));
            continue;
        }
        char name[256] = {};
        if (rsmi_dev_name_get(i, name, sizeof name) == RSMI_STATUS_SUCCESS)
            d.name = name;
        std::uint16_t deviceId = 0;
        if (rsmi_dev_id_get(i, &deviceId) == RSMI_STATUS_SUCCESS)
            d.deviceId = deviceId;
        std::uint64_t uniqueId = 0;
        if (rsmi_dev_unique_id_get(i, &uniqueId) == RSMI_STATUS_SUCCESS)
            d.uniqueId = uniqueId;
        char serial[128] = {};
        if (rsmi_dev_serial_number_get(i, serial, sizeof serial) == RSMI_STATUS_SUCCESS)
            d.serial = serial;
        std::uint64_t total = 0;
        if (rsmi_dev_memory_total_get(i, RSMI_MEM_TYPE_VRAM, &total) == RSMI_STATUS_SUCCESS)
            d.vramTotalBytes = total;
        m_devices.push_back(std::move(d));
    }
}

bool AmdRocmSmi::suspended(const Device& d) {
    if (d.deviceDir.empty())
        return false;
    // Both AMD collectors ask every cycle; keep one open descriptor per device.
    std::lock_guard lock(m_statusMutex);
    if (m_runtimeStatus.size() <= d.index)
        m_runtimeStatus.resize(d.index + 1);
    auto& attribute = m_runtimeStatus[d.index];
    if (!attribute)
        attribute = std::make_unique<SysfsAttribute>(d.deviceDir + "/power/runtime_status");
    return attribute->read().value_or("") == "suspended";
}

bool AmdRocmSmi::check(int status, const Device& d, const char* field) {
    if (status == RSMI_STATUS_SUCCESS)
        return true;
    if (m_logOnce.first(std::to_string(d.index) + field + std::to_string(status)))
        spdlog::info("AMD GPU {} ({}): {} not reported: {}", d.index, d.busId, field,
                     statusText(static_cast<rsmi_status_t>(status)));
    return false;
}

AmdRocmSmi::DirectReads& AmdRocmSmi::directReads(const Device& d) {
    if (m_direct.size() <= d.index)
        m_direct.resize(d.index + 1);
    DirectReads& direct = m_direct[d.index];
    if (direct.probed || d.deviceDir.empty())
        return direct;
    // rocm-smi decides what this GPU supports; only a field it could read gets a direct path.
    direct.probed = true;
    std::uint32_t percent = 0;
    std::uint64_t bytes = 0;
    if (check(rsmi_dev_busy_percent_get(d.index, &percent), d, "busy %"))
        direct.busy = std::make_unique<SysfsAttribute>(d.deviceDir + "/gpu_busy_percent");
    if (check(rsmi_dev_memory_busy_percent_get(d.index, &percent), d, "memory busy %"))
        direct.memoryBusy = std::make_unique<SysfsAttribute>(d.deviceDir + "/mem_busy_percent");
    if (check(rsmi_dev_memory_usage_get(d.index, RSMI_MEM_TYPE_VRAM, &bytes), d, "VRAM used"))
        direct.vramUsed = std::make_unique<SysfsAttribute>(d.deviceDir + "/mem_info_vram_used");
    return direct;
}

std::optional<double> AmdRocmSmi::readDirect(std::unique_ptr<SysfsAttribute>& attribute,
                                             const Device& d, const char* field) {
    if (!attribute)
        return std::nullopt;
    const auto text = attribute->read();
    if (const auto value = text ? SysfsReader::parseUint(*text) : std::nullopt)
        return static_cast<double>(*value);
    if (m_logOnce.first(std::to_string(d.index) + field + "direct"))
        spdlog::info("AMD GPU {} ({}): {} not reported: {} unreadable", d.index, d.busId, field,
                     attribute->path());
    return std::nullopt;
}

std::optional<double> AmdRocmSmi::busyPct(const Device& d) {
    std::lock_guard lock(m_directMutex);
    return readDirect(directReads(d).busy, d, "busy %");
}

std::optional<double> AmdRocmSmi::memoryBusyPct(const Device& d) {
    std::lock_guard lock(m_directMutex);
    return readDirect(directReads(d).memoryBusy, d, "memory busy %");
}

std::optional<double> AmdRocmSmi::vramUsedBytes(const Device& d) {
    std::lock_guard lock(m_directMutex);
    return readDirect(directReads(d).vramUsed, d, "VRAM used");
}

std::optional<double> AmdRocmSmi::gttUsedBytes(const Device& d) {
    std::uint64_t v = 0;
    return check(rsmi_dev_memory_usage_get(d.index, RSMI_MEM_TYPE_GTT, &v), d, "GTT used")
               ? std::optional<double>(static_cast<double>(v))
               : std::nullopt;
}

std::optional<double> AmdRocmSmi::averagePowerW(const Device& d) {
    std::uint64_t microwatts = 0;
    return check(rsmi_dev_power_ave_get(d.index, 0, &microwatts), d, "average power")
               ? std::optional<double>(static_cast<double>(microwatts) / 1e6)
               : std::nullopt;
}

std::optional<double> AmdRocmSmi::edgeTempC(const Device& d) {
    std::int64_t milli = 0;
    return check(rsmi_dev_temp_metric_get(d.index, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &milli),
                 d, "edge temperature")
               ? std::optional<double>(static_cast<double>(milli) / 1000.0)
               : std::nullopt;
}

std::optional<double> AmdRocmSmi::junctionTempC(const Device& d) {
    std::int64_t milli = 0;
    return check(rsmi_dev_temp_metric_get(d.index, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT,
                                          &milli),
                 d, "junction temperature")
               ? std::optional<double>(static_cast<double>(milli) / 1000.0)
               : std::nullopt;
}

AmdRocmSmi::Activity AmdRocmSmi::activity(const Device& d) {
    rsmi_gpu_metrics_t metrics{};
    if (!check(rsmi_dev_gpu_metrics_info_get(d.index, &metrics), d, "gpu_metrics"))
        return {};
    // 0xffff marks a field the firmware does not fill in.
    Activity a;
    if (metrics.average_gfx_activity != 0xffff)
        a.gfxPct = metrics.average_gfx_activity;
    if (metrics.average_umc_activity != 0xffff)
        a.umcPct = metrics.average_umc_activity;
    if (metrics.throttle_status != 0xffffffff)
        a.throttleStatus = metrics.throttle_status;
    // The driver fills gpu_metrics with 0xff before the firmware's fields: all ones (64 bits, or
    // 32 from the 1.0 layout's field) is an energy counter this firmware does not keep.
    if (metrics.energy_accumulator != UINT64_MAX && metrics.energy_accumulator != UINT32_MAX)
        a.energyCount = metrics.energy_accumulator;
    return a;
}

std::optional<double> AmdRocmSmi::energyResolutionUj(const Device& d) {
    std::lock_guard lock(m_directMutex);
    if (m_energyResolutionUj.size() <= d.index)
        m_energyResolutionUj.resize(d.index + 1);
    auto& resolution = m_energyResolutionUj[d.index];
    if (resolution)
        return resolution;
    std::uint64_t count = 0, timestampNs = 0;
    float resolutionUj = 0;
    if (check(rsmi_dev_energy_count_get(d.index, &count, &resolutionUj, &timestampNs), d,
              "energy counter resolution") &&
        resolutionUj > 0)
        resolution = resolutionUj;
    return resolution;
}

std::optional<AmdRocmSmi::PcieThroughput> AmdRocmSmi::parsePcieBw(const std::string& text) {
    unsigned long long sent = 0, received = 0, maxPayload = 0;
    if (std::sscanf(text.c_str(), "%llu %llu %llu", &sent, &received, &maxPayload) != 3)
        return std::nullopt;
    // The kernel counts messages over one second; each carries at most maxPayload bytes.
    return PcieThroughput{static_cast<double>(sent + received) * static_cast<double>(maxPayload)};
}

std::optional<double> AmdRocmSmi::parseLinkSpeed(const std::string& text) {
    double gts = 0;
    char unit[8] = {};
    if (std::sscanf(text.c_str(), "%lf %7s", &gts, unit) != 2 || std::strcmp(unit, "GT/s") != 0 ||
        gts <= 0)
        return std::nullopt;
    return gts;
}

AmdRocmSmi::PcieLink AmdRocmSmi::pcieLink(const Device& d) {
    if (d.deviceDir.empty())
        return {};
    auto lanes = [&](const char* name) -> std::optional<double> {
        // A link that is down reports 0 lanes: no reading, not a narrow link.
        const auto n = SysfsReader::readUint(d.deviceDir + "/" + name);
        return n && *n > 0 ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
    };
    auto speed = [&](const char* name) {
        const auto text = SysfsReader::readAttr(d.deviceDir + "/" + name);
        return text ? parseLinkSpeed(*text) : std::nullopt;
    };
    return {lanes("current_link_width"), lanes("max_link_width"), speed("current_link_speed"),
            speed("max_link_speed")};
}

AmdRocmSmi::Partition AmdRocmSmi::partition(const Device& d) {
    if (d.deviceDir.empty())
        return {};
    auto mode = [&](const char* name) {
        const auto text = SysfsReader::readAttr(d.deviceDir + "/" + name).value_or("");
        return text == "UNKNOWN" ? std::string() : text;
    };
    return {mode("current_compute_partition"), mode("current_memory_partition")};
}

std::optional<AmdRocmSmi::PcieThroughput> AmdRocmSmi::pcieThroughput(const Device& d) {
    const std::string path = d.deviceDir.empty() ? std::string() : d.deviceDir + "/pcie_bw";
    const auto text = path.empty() ? std::nullopt : SysfsReader::readAttr(path);
    auto parsed = text ? parsePcieBw(*text) : std::nullopt;
    if (!parsed && m_logOnce.first(std::to_string(d.index) + "pcie_bw"))
        spdlog::info("AMD GPU {} ({}): PCIe throughput not reported: {} unreadable", d.index,
                     d.busId, path.empty() ? "pcie_bw" : path);
    return parsed;
}

std::optional<std::vector<AmdRocmSmi::ComputeProcess>>
AmdRocmSmi::computeProcesses(std::string& reason) {
    std::vector<rsmi_process_info_t> infos;
    std::uint32_t count = 0;
    rsmi_status_t r = rsmi_compute_process_info_get(nullptr, &count);
    // A process can start between the two calls: room for a few more, and ask again if short.
    for (int attempt = 0; r == RSMI_STATUS_SUCCESS && attempt < 4; ++attempt) {
        infos.resize(count + 8);
        count = static_cast<std::uint32_t>(infos.size());
        r = rsmi_compute_process_info_get(infos.data(), &count);
        if (r == RSMI_STATUS_INSUFFICIENT_SIZE) {
            r = rsmi_compute_process_info_get(nullptr, &count);
            continue;
        }
        infos.resize(std::min<std::size_t>(count, infos.size()));
        break;
    }
    if (r != RSMI_STATUS_SUCCESS) {
        reason = "rsmi_compute_process_info_get: " + statusText(r);
        return std::nullopt;
    }
    std::vector<ComputeProcess> out;
    for (const auto& info : infos) {
        ComputeProcess p;
        p.pid = info.process_id;
        // The list gives pid and PASID only; the VRAM comes with the per-pid call.
        rsmi_process_info_t detail{};
        if (rsmi_compute_process_info_by_pid_get(p.pid, &detail) == RSMI_STATUS_SUCCESS)
            p.vramBytes = detail.vram_usage;
        std::uint32_t n = static_cast<std::uint32_t>(m_devices.size());
        std::vector<std::uint32_t> indices(std::max<std::size_t>(n, 1));
        if (rsmi_compute_process_gpus_get(p.pid, indices.data(), &n) == RSMI_STATUS_SUCCESS) {
            indices.resize(std::min<std::size_t>(n, indices.size()));
            p.devices = std::move(indices);
        }
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<std::vector<GpuProcessSnapshot::Process>>
AmdRocmSmi::processesByDevice(const std::vector<ComputeProcess>& processes,
                              std::size_t deviceCount) {
    std::vector<std::vector<GpuProcessSnapshot::Process>> out(deviceCount);
    for (const auto& p : processes) {
        for (const std::uint32_t device : p.devices) {
            if (device >= deviceCount)
                continue;
            GpuProcessSnapshot::Process row;
            row.pid = p.pid;
            row.compute = true;
            if (p.devices.size() == 1 && p.vramBytes)
                row.vramBytes = static_cast<double>(*p.vramBytes);
            out[device].push_back(std::move(row));
        }
    }
    return out;
}

} // namespace tierscope
