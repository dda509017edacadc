#include "ui/feeds/GpuProcessSampler.h"

#include "collectors/gpu/GpuProcessReader.h"

#include <QTimer>

namespace tierscope {

GpuProcessSampler::GpuProcessSampler(SystemPaths paths, GpuBackends::Libraries libraries,
                                     QObject* parent)
    : QObject(parent), m_paths(std::move(paths)), m_libraries(std::move(libraries)) {
    qRegisterMetaType<tierscope::GpuProcessSnapshot>();
}

GpuProcessSampler::~GpuProcessSampler() = default;

void GpuProcessSampler::start(int periodMs) {
    if (!m_reader)
        m_reader = std::make_unique<GpuProcessReader>(m_paths, m_libraries);
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &GpuProcessSampler::sample);
    }
    m_timer->start(periodMs);
    sample();
}

void GpuProcessSampler::stop() {
    if (m_timer)
        m_timer->stop();
}

bool GpuProcessSampler::running() const {
    return m_timer && m_timer->isActive();
}

void GpuProcessSampler::sample() {
    emit sampled(m_reader->read());
    // No backend answered: that will not change while tierscope runs, and the one snapshot
    // sent says why.
    if (!m_reader->anyGpu())
        m_timer->stop();
}

} // namespace tierscope
