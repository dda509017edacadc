// MainWindow's Prometheus source: the live view of a cluster read from a Prometheus server.
#include "ui/MainWindow.h"
#include "ui/feeds/PrometheusFeed.h"

#include <QLineEdit>
#include <QStatusBar>
#include <limits>

namespace tierscope {

void MainWindow::connectPrometheus(const QString& url, const QString& nodes, double stepS) {
    PrometheusFeed::Request r;
    r.db = m_db;
    r.url = url;
    r.nodes = nodes;
    r.stepS = stepS;
    r.label = m_label->text().trimmed();
    statusBar()->showMessage(tr("Connecting to Prometheus %1…").arg(url));
    // The live view and the recording switch only once the server answers: a dead server
    // leaves both as they were, and no empty session behind.
    connect(
        m_feed, &PrometheusFeed::probed, this,
        [this, r](const QString& probedUrl, const QString& error) {
            if (probedUrl != r.url)
                return;
            if (!error.isEmpty()) {
                statusBar()->showMessage(
                    tr("Cannot reach Prometheus %1: %2. The live view is unchanged.")
                        .arg(r.url, error),
                    15000);
                emit prometheusRefused(error);
                return;
            }
            switchToPrometheus(r);
        },
        Qt::SingleShotConnection);
    QMetaObject::invokeMethod(m_feed, [feed = m_feed, url] { feed->probe(url); });
}

void MainWindow::switchToPrometheus(const PrometheusFeed::Request& r) {
    if (m_liveSession != 0)
        stopRecording();
    m_feedUrl = r.url;
    m_liveDevices.clear();
    m_liveMarkers.clear();
    m_chartedSeries = std::numeric_limits<std::size_t>::max(); // rebuild the charts
    showLive();
    QMetaObject::invokeMethod(m_feed, [feed = m_feed, r] { feed->start(r); });
}

void MainWindow::disconnectPrometheus() {
    if (m_feedSession == 0)
        return;
    statusBar()->showMessage(
        tr("Disconnected from Prometheus %1; session %2 is kept").arg(m_feedUrl).arg(m_feedSession),
        10000);
    m_feedSession = 0;
    m_disconnect->setEnabled(false);
    QMetaObject::invokeMethod(m_feed, [feed = m_feed] { feed->stop(); });
}

} // namespace tierscope
