#include "workloads/BandwidthSampler.h"

namespace tierscope {

BandwidthSampler::BandwidthSampler(const IoRunner& runner, std::chrono::milliseconds interval,
                                   Callback onRates)
    : m_runner(runner), m_interval(interval), m_onRates(std::move(onRates)),
      m_last(std::chrono::steady_clock::now()), m_lastRead(runner.bytesRead()),
      m_lastWritten(runner.bytesWritten()), m_thread([this] { loop(); }) {}

BandwidthSampler::~BandwidthSampler() {
    stop();
}

void BandwidthSampler::stop() {
    {
        std::lock_guard lock(m_mutex);
        if (m_stop)
            return;
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    sample();
}

void BandwidthSampler::loop() {
    auto next = m_last + m_interval;
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_until(lock, next, [this] { return m_stop; })) {
        lock.unlock();
        sample();
        lock.lock();
        next += m_interval;
    }
}

void BandwidthSampler::sample() {
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - m_last).count();
    if (dt <= 0)
        return;
    Rates r;
    r.at = now;
    r.bytesRead = m_runner.bytesRead();
    r.bytesWritten = m_runner.bytesWritten();
    r.readBytesPerS = static_cast<double>(r.bytesRead - m_lastRead) / dt;
    r.writeBytesPerS = static_cast<double>(r.bytesWritten - m_lastWritten) / dt;
    m_last = now;
    m_lastRead = r.bytesRead;
    m_lastWritten = r.bytesWritten;
    m_onRates(r);
}

} // namespace tierscope
