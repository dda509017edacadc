// MainWindow's "GPUs" dock: each GPU's figures of the moment and the processes using it, as
// nvtop shows them, under "Top I/O processes".
#include "core/view/StatTiles.h"
#include "ui/MainWindow.h"
#include "ui/feeds/GpuPanel.h"
#include "ui/feeds/GpuProcessSampler.h"
#include "ui/feeds/GpuProcessTableModel.h"

#include <QDockWidget>
#include <QTimer>
#include <algorithm>

namespace tierscope {

void MainWindow::buildGpuDock() {
    m_gpuPanel = new GpuPanel(this);
    m_gpuDock = new QDockWidget(tr("GPUs"), this);
    m_gpuDock->setObjectName("gpus");
    m_gpuDock->setWidget(m_gpuPanel);
    // Under "Top I/O processes", in the docks' column: the charts keep their width, and both
    // docks show at once (a tab would hide one of them).
    if (m_processIoDock) {
        splitDockWidget(m_processIoDock, m_gpuDock, Qt::Vertical);
        // The sessions keep most of the column; the two panels their rows.
        if (auto* sessions = findChild<QDockWidget*>("sessions")) {
            const int io = m_processIoDock->widget()->sizeHint().height();
            const int gpus = m_gpuPanel->sizeHint().height();
            resizeDocks({sessions, m_processIoDock, m_gpuDock},
                        {std::max(io, height() - io - gpus), io, gpus}, Qt::Vertical);
        }
    } else {
        addDockWidget(Qt::LeftDockWidgetArea, m_gpuDock, Qt::Vertical);
    }
    if (m_options.exportOnly) {
        m_gpuDock->hide();
        return;
    }
    m_gpuSampler = new GpuProcessSampler;
    m_gpuSampler->moveToThread(&m_gpuThread);
    connect(&m_gpuThread, &QThread::finished, m_gpuSampler, &QObject::deleteLater);
    connect(m_gpuSampler, &GpuProcessSampler::sampled, this,
            [this](const GpuProcessSnapshot& snapshot) {
                if (m_gpuSampling)
                    m_gpuPanel->setSnapshot(snapshot);
            });
    m_gpuThread.start();
    // The figures are the live recording's latest samples, read from the in-memory buffer the
    // charts draw from: the same numbers, and no second poll of the GPUs.
    auto* follow = new QTimer(this);
    follow->setInterval(500);
    connect(follow, &QTimer::timeout, this, &MainWindow::updateGpuSampling);
    follow->start();
    connect(m_gpuDock, &QDockWidget::visibilityChanged, this, &MainWindow::updateGpuSampling);
    updateGpuSampling();
}

void MainWindow::updateGpuSampling() {
    if (!m_gpuSampler)
        return;
    const bool thisMachine = isLive() && m_feedSession == 0 && m_options.target.isEmpty();
    const bool wanted = thisMachine && m_gpuDock->isVisible() && !isMinimized();
    if (!thisMachine && !m_gpuPanel->processModel()->inactive())
        m_gpuPanel->setInactive();
    if (wanted)
        m_gpuPanel->setFigures(
            GpuFigures::fromLatest(GpuFigures::latest(m_buffer, StatTiles::kStaleNs)));
    if (wanted == m_gpuSampling)
        return;
    m_gpuSampling = wanted;
    if (wanted)
        QMetaObject::invokeMethod(m_gpuSampler, [sampler = m_gpuSampler] { sampler->start(); });
    else
        QMetaObject::invokeMethod(m_gpuSampler, [sampler = m_gpuSampler] { sampler->stop(); });
}

void MainWindow::stopGpu() {
    m_gpuSampling = false;
    if (m_gpuDock)
        disconnect(m_gpuDock, nullptr, this, nullptr);
    if (!m_gpuSampler)
        return;
    // The sampler, its timer and the vendor libraries it opened go on their own thread.
    m_gpuThread.quit();
    m_gpuThread.wait();
    m_gpuSampler = nullptr;
}

} // namespace tierscope
