// MainWindow's "Top I/O processes" dock: which processes of this machine read and write, beside
// the live view's device charts, which only say how much.
#include "ui/MainWindow.h"
#include "ui/feeds/ProcessIoPanel.h"
#include "ui/feeds/ProcessIoSampler.h"
#include "ui/feeds/ProcessIoTableModel.h"

#include <QDockWidget>
#include <QTimer>
#include <algorithm>

namespace tierscope {

void MainWindow::buildProcessIoDock() {
    m_processIoModel = new ProcessIoTableModel(this);
    m_processIoPanel = new ProcessIoPanel(m_processIoModel, this);
    m_processIoDock = new QDockWidget(tr("Top I/O processes"), this);
    m_processIoDock->setObjectName("processIo");
    m_processIoDock->setWidget(m_processIoPanel);
    // Under the sessions and devices, in the column the docks already take: the charts keep
    // their width. (splitDockWidget would add it as one more tab of their tab group.)
    addDockWidget(Qt::LeftDockWidgetArea, m_processIoDock, Qt::Vertical);
    // Ten rows and the note under them; the sessions keep the rest of the column.
    if (auto* sessions = findChild<QDockWidget*>("sessions")) {
        const int rows = m_processIoPanel->sizeHint().height();
        resizeDocks({sessions, m_processIoDock}, {std::max(rows, height() - rows), rows},
                    Qt::Vertical);
    }
    if (m_options.exportOnly) { // a window that only draws a session for an export
        m_processIoDock->hide();
        return;
    }
    m_processIo = new ProcessIoSampler;
    m_processIo->moveToThread(&m_processIoThread);
    connect(&m_processIoThread, &QThread::finished, m_processIo, &QObject::deleteLater);
    connect(m_processIo, &ProcessIoSampler::sampled, this,
            [this](const ProcessIoSnapshot& snapshot) {
                if (m_processIoSampling) // not one that was on its way when sampling stopped
                    m_processIoModel->setSnapshot(snapshot);
            });
    m_processIoThread.start();
    // Whether to sample follows the view (live or a session, this machine or a server) and
    // the dock's visibility; checked on a timer rather than at each of the places that change
    // them. The check itself touches nothing outside this window.
    auto* follow = new QTimer(this);
    follow->setInterval(500);
    connect(follow, &QTimer::timeout, this, &MainWindow::updateProcessIoSampling);
    follow->start();
    connect(m_processIoDock, &QDockWidget::visibilityChanged, this,
            &MainWindow::updateProcessIoSampling);
    updateProcessIoSampling();
}

void MainWindow::updateProcessIoSampling() {
    if (!m_processIo)
        return;
    // Only this machine's live view is about this machine's processes.
    const bool thisMachine = isLive() && m_feedSession == 0 && m_options.target.isEmpty();
    const bool wanted = thisMachine && m_processIoDock->isVisible() && !isMinimized();
    if (!thisMachine && !m_processIoModel->inactive())
        m_processIoModel->setInactive();
    if (wanted == m_processIoSampling)
        return;
    m_processIoSampling = wanted;
    if (wanted)
        QMetaObject::invokeMethod(m_processIo, [sampler = m_processIo] { sampler->start(); });
    else
        QMetaObject::invokeMethod(m_processIo, [sampler = m_processIo] { sampler->stop(); });
}

void MainWindow::stopProcessIo() {
    m_processIoSampling = false;
    // Called from the destructor: the dock hides as the window's base class destroys it,
    // after this class is gone.
    if (m_processIoDock)
        disconnect(m_processIoDock, nullptr, this, nullptr);
    if (!m_processIo)
        return;
    // The sampler and its timer are deleted on their own thread as it finishes.
    m_processIoThread.quit();
    m_processIoThread.wait();
    m_processIo = nullptr;
}

} // namespace tierscope
