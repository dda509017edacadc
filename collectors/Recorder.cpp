#include "collectors/Recorder.h"

#include "collectors/MachineInventory.h"
#include "collectors/host/HostCollector.h"
#include "collectors/storage/BlockStatCollector.h"
#include "core/store/Store.h"
#include "core/util/Version.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

namespace tierscope {

namespace {

std::string hostName() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0)
        return "unknown";
    return buffer;
}

} // namespace

Recorder::Recorder(Options options)
    : m_options(std::move(options)),
      m_clock(m_options.clocks ? *m_options.clocks : ClockSource::system()) {
    auto inventory = MachineInventory::discover(m_options.paths);
    m_devices = std::move(inventory.devices);
    std::vector<std::unique_ptr<EngineMetricsCollector>> engines;
    for (const auto& engine : m_options.engines) {
        engines.push_back(std::make_unique<EngineMetricsCollector>(engine));
        for (auto& d : engines.back()->devices())
            m_devices.push_back(std::move(d));
    }

    SessionInfo info;
    info.label = m_options.label;
    info.storageProfile = m_options.storageProfile;
    info.tags = m_options.tags;
    info.host = hostName();
    info.startNs = m_clock.nowNs();
    info.toolVersion = kToolVersion;
    m_session = std::make_unique<RecordingSession>(
        RecordingSession::Options{m_options.dbPath, m_options.writer, m_options.observer}, info);
    m_session->store().addDevices(m_session->id(), m_devices);
    m_session->store().addEvent(m_session->id(), info.startNs, "record-start", "");

    m_clock.onStep([this](const WallClock::Step& step) { recordClockStep(step); });
    m_scheduler = std::make_unique<Scheduler>(m_session->sink(), m_clock);
    m_scheduler->add(std::make_unique<HostCollector>(m_options.paths), m_options.interval);
    m_scheduler->add(std::make_unique<BlockStatCollector>(m_options.paths, inventory.transports),
                     m_options.interval);
    for (auto& gpu : inventory.gpus.collectors)
        m_scheduler->add(std::move(gpu), m_options.interval);
    for (auto& engine : engines)
        m_scheduler->add(std::move(engine), m_options.engineInterval);
    // A pcie_bw read takes a second in the kernel; asking more often only queues readers.
    for (auto& slow : inventory.gpus.slowCollectors)
        m_scheduler->add(std::move(slow), std::max<std::chrono::nanoseconds>(
                                              m_options.interval, std::chrono::seconds(1)));
}

Recorder::~Recorder() {
    stop();
}

void Recorder::recordClockStep(const WallClock::Step& step) {
    const double ms = static_cast<double>(step.stepNs()) / 1e6;
    spdlog::warn("the system clock stepped by {:.1f} ms against the monotonic clock; later "
                 "samples use the new offset{}",
                 ms, ms < 0 ? " (approached gradually, so no timestamp goes back)" : "");
    const nlohmann::json text = {
        {"old_offset_ns", step.oldOffsetNs}, {"new_offset_ns", step.newOffsetNs}, {"step_ms", ms}};
    // Its own connection: the step is seen on the scheduler's thread.
    try {
        Store store(m_options.dbPath, Store::Mode::ReadWrite);
        store.addEvent(m_session->id(), step.atWallNs, "clock-step", text.dump());
    } catch (const std::exception& e) {
        spdlog::warn("cannot store the clock-step event: {}", e.what());
    }
}

void Recorder::start() {
    m_running = true;
    m_scheduler->start();
}

void Recorder::stop() {
    if (!m_scheduler)
        return;
    m_scheduler->stop();
    m_session->stopWriter();
    if (m_running)
        m_session->finish(m_clock.nowNs(), "record-stop", error().value_or(""));
    else
        m_session->abandon();
    m_running = false;
    m_scheduler.reset();
}

} // namespace tierscope
