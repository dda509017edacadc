// MainWindow's live view of this machine: recording, markers and the batched live repaint.
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "core/view/EngineAbsence.h"
#include "core/view/TimelineFrame.h"
#include "ui/DevicesView.h"
#include "ui/MainWindow.h"
#include "ui/feeds/LiveRecording.h"
#include "ui/feeds/PrometheusFeed.h"
#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/TimelineView.h"

#include <QComboBox>
#include <QInputDialog>
#include <QLineEdit>
#include <QStatusBar>

namespace tierscope {

// The live sources' answers: this machine's recording and a Prometheus feed.
void MainWindow::connectLiveSources() {
    connect(m_live, &LiveRecording::started, this,
            [this](qint64 id, const std::vector<DeviceRecord>& devices) {
                m_liveSession = id;
                m_liveDevices = devices;
                m_chartedSeries = 0;   // absent-source reasons come from the devices
                m_liveMarkers.clear(); // a new session: the old one's notes stay with it
                if (isLive())
                    m_timeline->setMarkers(m_liveMarkers);
                if (isLive())
                    m_devices->setDevices(devices);
                showRecording(true);
                m_record->setEnabled(true);
                if (std::exchange(m_restarting, false))
                    statusBar()->showMessage(
                        tr("Recording restarted with the new settings as session %1").arg(id),
                        10000);
                setStatus();
                refreshSessions();
                emit recordingStarted(id);
            });
    connect(m_feed, &PrometheusFeed::started, this, [this](qint64 id) {
        m_feedSession = id;
        m_disconnect->setEnabled(true);
        statusBar()->showMessage(
            tr("Live from Prometheus %1, recorded as session %2").arg(m_feedUrl).arg(id));
        refreshSessions();
        emit prometheusConnected(id);
    });
    connect(m_feed, &PrometheusFeed::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Prometheus: %1 (partial data kept; retrying)").arg(message),
                                 15000);
    });
    connect(m_live, &LiveRecording::stopped, this, [this](qint64 id, const QString& error) {
        m_liveSession = 0;
        showRecording(false);
        m_record->setEnabled(m_experimentSession == 0); // an experiment records the machine
        if (!error.isEmpty())
            statusBar()->showMessage(
                tr("Recording stopped: %1. Everything recorded before it is kept in session %2.")
                    .arg(error)
                    .arg(id));
        setStatus();
        refreshSessions();
        emit recordingStopped(id);
    });
    connect(m_live, &LiveRecording::failed, this, [this](const QString& message) {
        m_restarting = false;
        m_record->setChecked(false);
        m_record->setEnabled(true);
        statusBar()->showMessage(tr("Cannot record: %1").arg(message));
    });
    connect(m_live, &LiveRecording::markerAdded, this, [this](qint64 tNs, const QString& text) {
        m_liveMarkers.push_back({tNs, text});
        if (isLive())
            m_timeline->setMarkers(m_liveMarkers);
        statusBar()->showMessage(tr("Marker added: %1").arg(text), 5000);
    });
}

void MainWindow::startRecording() {
    if (m_experimentSession != 0) {
        statusBar()->showMessage(tr("The running experiment records this machine"), 5000);
        m_record->setChecked(false);
        return;
    }
    disconnectPrometheus();      // one live source at a time
    m_record->setEnabled(false); // until the worker says it started or failed
    LiveRecording::Request r;
    r.db = m_db;
    r.label = m_label->text().trimmed().isEmpty() ? tr("live") : m_label->text().trimmed();
    r.storageProfile = m_profile->currentText().trimmed();
    r.intervalMs = m_settings.intervalMs;
    r.engines = m_options.engines.isEmpty() ? m_settings.engineUrls : m_options.engines;
    m_liveEngines = r.engines;
    QMetaObject::invokeMethod(m_live, [live = m_live, r] { live->start(r); });
}

void MainWindow::stopRecording() {
    m_record->setEnabled(false);
    QMetaObject::invokeMethod(m_live, [live = m_live] { live->stop(); });
}

void MainWindow::addMarker() {
    if (m_liveSession == 0) {
        statusBar()->showMessage(tr("Markers go into a recording: press Record first"), 5000);
        return;
    }
    const qint64 at = WallClock().nowNs(); // the moment of the key press, not of the dialog
    bool ok = false;
    const QString text =
        QInputDialog::getText(this, tr("Marker"), tr("Note"), QLineEdit::Normal, QString(), &ok);
    if (!ok)
        return;
    QMetaObject::invokeMethod(m_live, [live = m_live, text, at] { live->addMarker(text, at); });
}

qint64 MainWindow::windowNs() const {
    return m_window->currentData().toLongLong() * kSecond;
}

void MainWindow::refreshLive() {
    // A minimised window or another tab shows no chart: nothing to draw until it comes back.
    if (!isLive() || m_pause->isChecked() || !m_timeline->isVisible() || isMinimized())
        return;
    const std::int64_t now = WallClock().nowNs();
    // A recording's first seconds fill the plot instead of a sliver at its right edge: the
    // window grows in 10 s steps (one rescale per step, not per frame) up to the length set.
    const std::int64_t held = m_buffer.oldestNs() > 0 ? now - m_buffer.oldestNs() : 0;
    const std::int64_t grown =
        std::max<std::int64_t>(1, (held + 10 * kSecond - 1) / (10 * kSecond)) * 10 * kSecond;
    const std::int64_t shown = windowNs() > 0 ? std::min<std::int64_t>(windowNs(), grown) : grown;
    const auto edge = m_pacer.due(now, shown, m_timeline->plotWidth(), m_buffer.version());
    if (!edge)
        return;
    const std::int64_t t1 = *edge;
    // The catalog parses every series' labels: build it when a series appears, not per frame.
    const auto scrape = engineScrape(t1);
    const auto series = m_buffer.seriesCount();
    const bool newCharts = series != m_chartedSeries || scrape != m_chartedScrape;
    // The band and the tiles are classified at most once a second: a window is seconds long.
    const bool band = m_bandAt == 0 || t1 - m_bandAt >= kSecond;
    // Only a new chart set and the band read the metric list: not copied for every frame.
    const auto metrics = newCharts || band ? m_buffer.metrics() : std::vector<MetricInfo>{};
    if (newCharts) {
        m_chartedSeries = series;
        m_chartedScrape = scrape;
        TimelineFrame::ChartSource source;
        source.metrics = metrics;
        source.devices = m_liveDevices;
        if (m_feedSession == 0 && m_liveSession != 0)
            for (const auto& url : m_liveEngines)
                source.engineUrls.push_back(url.toStdString());
        source.live = true;
        source.scrape = scrape;
        m_timeline->setCharts(TimelineFrame::charts(source, m_layout));
    }
    const std::int64_t t0 = t1 - shown;
    auto request = TimelineFrame::Request::live(t0, t1, m_timeline->plotWidth(), band);
    if (band) {
        m_bandAt = t1;
        requestLiveCeilings(t1);
        request.ceilings = m_liveCeilings;
    }
    // Between two band frames only the charts in view are read and drawn: the band's tiles
    // need every chart, and a chart scrolled into view asks for a frame (viewportMoved).
    const auto frame = TimelineFrame::build(
        band ? m_timeline->specs() : m_timeline->visibleSpecs(), metrics,
        [this](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
            return m_buffer.decimated(id, from, to, points);
        },
        request);
    m_timeline->setTimeRange(static_cast<double>(t0 - t1) / 1e9, 0, tr("seconds ago"));
    if (band)
        m_timeline->setData(frame.data, t1);
    else
        m_timeline->setVisibleData(frame.data, t1);
    if (frame.bottlenecks) {
        m_timeline->bottleneckBand()->setSpans(BottleneckBand::spansOf(*frame.bottlenecks, t1));
        m_timeline->tiles()->setTiles(frame.tiles);
    }
    emit liveRefreshed();
}

// Whether the engine endpoints answered in the last few seconds (their scrape_ok series).
EngineAbsence::Scrape MainWindow::engineScrape(std::int64_t nowNs) const {
    if (m_liveEngines.isEmpty() || m_liveSession == 0)
        return EngineAbsence::Scrape::Unknown;
    auto state = EngineAbsence::Scrape::Unknown;
    for (const auto& m : m_buffer.metrics()) {
        const auto& path = m.descriptor.path;
        if (!path.starts_with("engine/") || !path.ends_with("/scrape_ok"))
            continue;
        const auto recent = m_buffer.decimated(m.id, nowNs - 5 * kSecond, nowNs, 1);
        if (recent.empty())
            continue;
        if (recent.front().max > 0)
            return EngineAbsence::Scrape::Answering;
        state = EngineAbsence::Scrape::Failing;
    }
    return state;
}

// Asked again for new devices, a new session, or once a minute (history may have a new best).
void MainWindow::requestLiveCeilings(std::int64_t nowNs) {
    const qint64 session = liveSourceSession();
    if (session != m_ceilingSession)
        m_liveCeilings.clear();
    if (session == 0)
        return;
    std::set<std::string> devices;
    for (const auto& m : m_buffer.metrics())
        if (const auto s = SessionAnalysis::storageOf(m))
            devices.insert(s->first);
    if (session == m_ceilingSession && devices == m_ceilingDevices &&
        nowNs - m_ceilingsAt < 60 * kSecond)
        return;
    m_ceilingSession = session;
    m_ceilingDevices = devices;
    m_ceilingsAt = nowNs;
    QMetaObject::invokeMethod(m_reader, [reader = m_reader, db = m_db, session, devices] {
        reader->readCeilings(db, session, devices);
    });
}

} // namespace tierscope
