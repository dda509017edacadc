#include "ui/feeds/ProcessIoSampler.h"

#include "collectors/host/ProcessIo.h"

#include <QTimer>

namespace tierscope {

ProcessIoSampler::ProcessIoSampler(QString procRoot, QObject* parent)
    : QObject(parent), m_procRoot(std::move(procRoot)) {
    qRegisterMetaType<tierscope::ProcessIoSnapshot>();
}

void ProcessIoSampler::start(int periodMs) {
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &ProcessIoSampler::sample);
    }
    // A restart begins a new interval: a rate across a pause would average over it.
    m_havePrevious = false;
    m_timer->start(periodMs);
    sample();
}

void ProcessIoSampler::stop() {
    if (m_timer)
        m_timer->stop();
    m_havePrevious = false;
    m_previous.clear();
}

bool ProcessIoSampler::running() const {
    return m_timer && m_timer->isActive();
}

void ProcessIoSampler::sample() {
    auto scan = ProcessIo::scanCounted(m_procRoot.toStdString());
    // The interval is measured, not assumed: a busy machine fires the timer late.
    const auto now = std::chrono::steady_clock::now();
    ProcessIoSnapshot snapshot;
    snapshot.readable = static_cast<int>(scan.processes.size());
    snapshot.unreadable = scan.unreadable;
    if (m_havePrevious)
        snapshot.top = ProcessIoTop::compute(
            m_previous, scan.processes, std::chrono::duration<double>(now - m_previousAt).count(),
            kTopRows);
    m_previous = std::move(scan.processes);
    m_previousAt = now;
    m_havePrevious = true;
    emit sampled(snapshot);
}

} // namespace tierscope
