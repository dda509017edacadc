// MainWindow's opened sessions: reading one on the worker and fetching again for the width.
#include "core/util/UnitFormat.h"
#include "ui/DevicesView.h"
#include "ui/MainWindow.h"
#include "ui/experiment/RunsPanel.h"
#include "ui/sessions/SessionBrowser.h"
#include "ui/sessions/SessionListModel.h"
#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/TimelineView.h"

#include <QComboBox>
#include <QDockWidget>
#include <QStatusBar>
#include <QTimer>

namespace tierscope {

// The store reader's answers, which arrive on the GUI thread through queued signals.
void MainWindow::connectReader() {
    connect(m_reader, &StoreReader::sessionsListed, this,
            [this](const std::vector<SessionInfo>& sessions) {
                m_listing = false;
                const qint64 selected = m_browser->currentSession();
                if (m_sessions->setSessions(sessions) && selected != 0)
                    m_browser->select(selected);
                // The first item added to an empty combo box becomes its text: keep what the
                // user typed (or nothing), or live sessions get filed under a past profile.
                const QString typed = m_profile->currentText();
                for (const auto& s : sessions)
                    if (!s.storageProfile.empty() &&
                        m_profile->findText(QString::fromStdString(s.storageProfile)) < 0)
                        m_profile->addItem(QString::fromStdString(s.storageProfile));
                if (m_profile->currentText() != typed) {
                    m_profile->setCurrentIndex(m_profile->findText(typed));
                    m_profile->setEditText(typed);
                }
                emit sessionsRefreshed();
            });
    connect(m_reader, &StoreReader::sessionOpened, this, &MainWindow::onSessionOpened);
    connect(m_reader, &StoreReader::rangeLoaded, this,
            [this](quint64 request, const SeriesMap& data) {
                if (request != m_rangeRequest || isLive())
                    return;
                m_rangeAnswered = request;
                SeriesMap all = data;
                all.insert(m_requestData.begin(), m_requestData.end());
                m_timeline->setData(all, m_shownOrigin);
            });
    connect(m_reader, &StoreReader::ceilingsRead, this,
            [this](qint64 sessionId, const SessionAnalysis::Ceilings& ceilings) {
                if (sessionId != m_ceilingSession)
                    return; // asked for a session that is no longer live
                m_liveCeilings = ceilings;
                m_bandAt = 0; // judge the band again with them
            });
    connect(m_reader, &StoreReader::failed, this, [this](const QString& message) {
        m_listing = false;
        statusBar()->showMessage(message, 10000);
    });
}

void MainWindow::openSession(qint64 sessionId) {
    m_shownSession = sessionId;
    m_sessionDrawn = false;
    m_rangeAnswered = ++m_rangeRequest; // a range read for the session shown before is stale
    m_timeline->setInteractive(true);
    statusBar()->showMessage(tr("Opening session %1 ...").arg(sessionId));
    const int columns = m_fetchedColumns = m_timeline->plotWidth();
    QMetaObject::invokeMethod(
        m_reader, [reader = m_reader, db = m_db, sessionId, columns, layout = m_layout] {
            reader->openSession(db, sessionId, columns, layout);
        });
}

void MainWindow::onSessionOpened(const SessionView& view) {
    if (view.info.id != m_shownSession)
        return; // the user went on to another session or back to live
    m_shownOrigin = view.t0Ns;
    m_requestData = view.requestData;
    m_shownMetrics = view.metrics;
    m_sessionDrawn = true;
    m_timeline->tiles()->hide(); // "now" is the live view's
    m_timeline->setCharts(view.charts);
    m_timeline->setBounds(0, static_cast<double>(view.t1Ns - view.t0Ns) / 1e9);
    m_timeline->setTimeRange(
        0, static_cast<double>(view.t1Ns - view.t0Ns) / 1e9,
        tr("seconds since %1").arg(QString::fromStdString(UnitFormat::utcTime(view.t0Ns))));
    m_timeline->setData(view.data, view.t0Ns);
    m_timeline->setMarkers(view.markers);
    m_timeline->setSpans(view.spans);
    m_timeline->bottleneckBand()->setSpans(BottleneckBand::spansOf(view.bottlenecks, view.t0Ns));
    m_devices->setDevices(view.devices);
    m_runs->setRows(view.runs);
    if (!view.runs.empty() && m_runsDock->isHidden()) {
        m_runsDock->show();
        resizeDocks({m_runsDock}, {std::max(180, height() / 4)}, Qt::Vertical);
    } else if (view.runs.empty()) {
        m_runsDock->hide();
    }
    m_browser->select(view.info.id);
    statusBar()->clearMessage();
    setStatus();
    if (!m_linkApplied && view.info.id == m_options.session)
        applyDeepLink(static_cast<double>(view.t1Ns - view.t0Ns) / 1e9);
    refetchForWidth();
    emit sessionShown(view.info.id);
}

// `gui --session N --range A..B --runs 3,5`: the view a colleague copied, shown once; the
// session opened again later is shown whole.
void MainWindow::applyDeepLink(double sessionSeconds) {
    m_linkApplied = true;
    if (!m_options.runs.isEmpty()) {
        m_timeline->selectRuns(m_options.runs);
        m_runs->highlightRuns(m_options.runs);
    }
    if (!m_options.rangeFromNs && !m_options.rangeToNs)
        return;
    const auto [x0, x1] = TimelineView::clampRange(
        m_options.rangeFromNs ? static_cast<double>(*m_options.rangeFromNs) / 1e9 : 0.0,
        m_options.rangeToNs ? static_cast<double>(*m_options.rangeToNs) / 1e9 : sessionSeconds, 0,
        sessionSeconds, 1e-3);
    m_timeline->setTimeRange(x0, x1, m_timeline->axisTitle());
    m_pendingX0 = x0; // read again for the range, as a zoom is
    m_pendingX1 = x1;
    m_rangeTimer->start();
    // And its figures in the Range dock, as `analyze --range` prints them: after the Range
    // panel has learnt the session (sessionShown is emitted after this).
    QMetaObject::invokeMethod(
        this, [this, from = x0, to = x1] { m_timeline->selectRange(from, to); },
        Qt::QueuedConnection);
}

bool MainWindow::sessionSettled() const {
    return !isLive() && m_sessionDrawn && !m_rangeTimer->isActive() &&
           m_rangeAnswered == m_rangeRequest && fetchedForWidth();
}

bool MainWindow::fetchedForWidth() const {
    const int width = m_timeline->plotWidth();
    return std::abs(width - m_fetchedColumns) * 10 <= width; // within 10 %
}

// A session opened before the window was laid out (at start-up) was read for a guessed width;
// too few buckets on a wide plot draw their min/max strokes as a false sawtooth.
void MainWindow::refetchForWidth() {
    if (isLive() || !m_sessionDrawn || fetchedForWidth())
        return;
    m_pendingX0 = m_timeline->rangeStart();
    m_pendingX1 = m_timeline->rangeEnd();
    m_rangeTimer->start();
}

void MainWindow::requestRange(double x0, double x1) {
    if (isLive())
        return;
    const qint64 t0 = m_shownOrigin + static_cast<qint64>(x0 * 1e9);
    const qint64 t1 = m_shownOrigin + static_cast<qint64>(x1 * 1e9);
    const int columns = m_fetchedColumns = m_timeline->plotWidth();
    const quint64 request = ++m_rangeRequest;
    std::vector<std::int64_t> ids; // the stored series shown; the request series stay as read
    for (const auto* chart : m_timeline->charts())
        for (const auto& s : chart->spec().series)
            if (s.metricId > 0)
                ids.push_back(s.metricId);
    QMetaObject::invokeMethod(m_reader,
                              [reader = m_reader, db = m_db, t0, t1, columns, ids, request] {
                                  reader->loadRange(db, t0, t1, columns, ids, request);
                              });
}

} // namespace tierscope
