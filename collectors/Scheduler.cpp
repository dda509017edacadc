#include "collectors/Scheduler.h"

#include <ctime>
#include <spdlog/spdlog.h>

namespace tierscope {

namespace {

std::int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

Scheduler::Scheduler(SampleSink& sink, const WallClock& clock) : m_sink(sink), m_clock(clock) {}

Scheduler::~Scheduler() {
    stop();
}

void Scheduler::add(std::unique_ptr<Collector> collector, std::chrono::nanoseconds interval) {
    auto entry = std::make_unique<Entry>();
    entry->collector = std::move(collector);
    entry->interval = interval;
    m_entries.push_back(std::move(entry));
}

void Scheduler::start() {
    for (auto& entry : m_entries)
        m_threads.emplace_back(&Scheduler::runCollector, this, std::ref(*entry));
    m_threads.emplace_back(&Scheduler::runSelfReport, this);
}

void Scheduler::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& entry : m_entries)
        entry->collector->interrupt();
    for (auto& t : m_threads)
        if (t.joinable())
            t.join();
    m_threads.clear();
}

std::vector<DeviceRecord> Scheduler::devices() {
    std::vector<DeviceRecord> out;
    for (auto& entry : m_entries)
        for (auto& d : entry->collector->devices())
            out.push_back(std::move(d));
    return out;
}

bool Scheduler::sleepUntil(std::chrono::steady_clock::time_point t) {
    std::unique_lock lock(m_mutex);
    return !m_wake.wait_until(lock, t, [&] { return m_stopping; });
}

void Scheduler::runCollector(Entry& entry) {
    auto next = std::chrono::steady_clock::now();
    for (;;) {
        const auto cpuBefore = threadCpuNs();
        const auto now = std::chrono::steady_clock::now();
        const std::int64_t tNs = m_clock.toWallNs(now);
        try {
            const auto readings = entry.collector->sample(tNs);
            if (!readings.empty())
                m_sink.write(tNs, readings);
        } catch (const std::exception& e) {
            // One log line per distinct failure, not one per cycle.
            if (entry.errorLogged != e.what()) {
                entry.errorLogged = e.what();
                spdlog::warn("collector {} failed: {}", entry.collector->name(), e.what());
            }
        }
        entry.cpuNs += threadCpuNs() - cpuBefore;
        ++m_cycles;
        // Fixed-rate schedule; after a stall, skip missed ticks instead of bursting.
        next += entry.interval;
        if (const auto late = std::chrono::steady_clock::now(); next < late)
            next = late + entry.interval - (late - next) % entry.interval;
        if (!sleepUntil(next))
            return;
    }
}

void Scheduler::runSelfReport() {
    auto previousWall = std::chrono::steady_clock::now();
    std::vector<std::int64_t> previousCpu(m_entries.size(), 0);
    for (;;) {
        if (!sleepUntil(previousWall + std::chrono::seconds(1)))
            return;
        // Once a second is enough to catch NTP steps and suspends, and costs two clock reads.
        m_clock.resync();
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - previousWall).count();
        previousWall = now;
        std::vector<Reading> readings;
        std::int64_t totalNs = 0;
        for (std::size_t i = 0; i < m_entries.size(); ++i) {
            const std::int64_t cpu = m_entries[i]->cpuNs.load();
            const std::int64_t delta = cpu - previousCpu[i];
            previousCpu[i] = cpu;
            totalNs += delta;
            readings.push_back(
                {{"self/" + m_entries[i]->collector->name() + "/cpu_seconds_per_s", "s/s", "gauge"},
                 static_cast<double>(delta) / 1e9 / seconds});
        }
        readings.push_back({{"self/cpu_seconds_per_s", "s/s", "gauge"},
                            static_cast<double>(totalNs) / 1e9 / seconds});
        m_sink.write(m_clock.toWallNs(now), readings);
    }
}

} // namespace tierscope
