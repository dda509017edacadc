// MainWindow's SSH target: the live view of a server (RemoteFeed), kept apart from
// MainWindow.cpp so the remote wiring stays in one place.
#include "ui/DevicesView.h"
#include "ui/MainWindow.h"
#include "ui/feeds/RemoteFeed.h"
#include "ui/timeline/TimelineView.h"

#include <QInputDialog>
#include <QLineEdit>
#include <QStatusBar>
#include <limits>

namespace tierscope {

void MainWindow::wireRemoteFeed() {
    connect(m_remote, &RemoteFeed::started, this,
            [this](qint64 id, const QString& host, const std::vector<DeviceRecord>& devices) {
                setWindowTitle(tr("tierscope: %1 (live over SSH)").arg(host));
                m_liveDevices = devices;
                m_chartedSeries = std::numeric_limits<std::size_t>::max(); // rebuild charts
                if (isLive())
                    m_devices->setDevices(devices);
                statusBar()->showMessage(
                    tr("Live from %1 over SSH: recorded there, mirrored here as session %2")
                        .arg(host)
                        .arg(id));
                refreshSessions();
                emit serverConnected(id, host);
            });
    connect(m_remote, &RemoteFeed::stopped, this,
            [this](qint64 id, const QString& host, const QString& error) {
                setWindowTitle(tr("tierscope: %1 (disconnected)").arg(host));
                statusBar()->showMessage(
                    error.isEmpty()
                        ? tr("Disconnected from %1; its mirror is session %2").arg(host).arg(id)
                        : tr("%1. The mirror (session %2) keeps what arrived; Connect to "
                             "server... reconnects")
                              .arg(error)
                              .arg(id));
                refreshSessions();
            });
    connect(m_remote, &RemoteFeed::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Cannot watch the server: %1").arg(message));
    });
}

void MainWindow::askServer() {
    bool ok = false;
    const QString target = QInputDialog::getText(
        this, tr("Connect to server"),
        tr("Server (your ssh keys and config are used; tierscope must be installed there):"),
        QLineEdit::Normal, m_options.target.isEmpty() ? "ssh://" : m_options.target, &ok);
    if (ok && !target.trimmed().isEmpty())
        connectServer(target.trimmed());
}

void MainWindow::connectServer(const QString& target) {
    if (m_liveSession != 0)
        stopRecording();
    disconnectPrometheus(); // one live source at a time
    m_options.target = target;
    m_liveDevices.clear();
    m_liveMarkers.clear();
    showLive();
    statusBar()->showMessage(tr("Connecting to %1 ...").arg(target));
    RemoteFeed::Request r;
    r.db = m_db;
    r.target = target;
    r.label = m_label->text().trimmed();
    m_remote->start(r);
}

} // namespace tierscope
